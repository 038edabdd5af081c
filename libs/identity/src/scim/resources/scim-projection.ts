import {
  SCIM_ENTERPRISE_USER_SCHEMA,
  SCIM_GROUP_SCHEMA,
  SCIM_TESSERA_IDENTITY_SCHEMA,
  SCIM_USER_SCHEMA,
} from './scim-user.schema.js';
import { isScimObject } from './scim-values.js';

/** The query parameters of RFC 7644 §3.4.2.5 / §3.9. */
export interface ScimProjectionParams {
  /** Comma-separated attribute names to return (plus the always-returned ones). Wins over `excludedAttributes`. */
  readonly attributes?: string | undefined;
  /** Comma-separated attribute names to leave out (the always-returned ones stay). */
  readonly excludedAttributes?: string | undefined;
}

// `returned: always` (RFC 7643 §3.1, §7): the resource's identity, its schemas and meta, and
// Tessera's identity extension (the identity user id).
const ALWAYS = new Set(['id', 'schemas', 'meta', SCIM_TESSERA_IDENTITY_SCHEMA.toLowerCase()]);

/** One requested name, lower-cased: a top-level key of the representation and an optional sub-attribute. */
interface Selector {
  readonly key: string;
  readonly sub: string | null;
}

function selectors(list: string, kind: 'User' | 'Group'): Selector[] {
  const core = `${(kind === 'User' ? SCIM_USER_SCHEMA : SCIM_GROUP_SCHEMA).toLowerCase()}:`;
  const enterprise = SCIM_ENTERPRISE_USER_SCHEMA.toLowerCase();
  const out: Selector[] = [];
  for (const item of list.split(',')) {
    let name = item.trim().toLowerCase();
    if (name === '') continue;
    if (kind === 'User' && (name === enterprise || name.startsWith(`${enterprise}:`))) {
      // The extension's attributes live in the object under its URN key.
      const rest = name.slice(enterprise.length + 1);
      out.push({ key: enterprise, sub: rest === '' ? null : (rest.split('.')[0] ?? null) });
      continue;
    }
    if (name.startsWith(core)) name = name.slice(core.length);
    const dot = name.indexOf('.');
    out.push(dot < 0 ? { key: name, sub: null } : { key: name.slice(0, dot), sub: name.slice(dot + 1) });
  }
  return out;
}

function pickSubs(value: unknown, subs: ReadonlySet<string>): unknown {
  const pick = (item: unknown): unknown => {
    if (!isScimObject(item)) return item;
    return Object.fromEntries(Object.entries(item).filter(([key]) => subs.has(key.toLowerCase())));
  };
  return Array.isArray(value) ? value.map(pick) : pick(value);
}

function dropSubs(value: unknown, subs: ReadonlySet<string>): unknown {
  const drop = (item: unknown): unknown => {
    if (!isScimObject(item)) return item;
    return Object.fromEntries(Object.entries(item).filter(([key]) => !subs.has(key.toLowerCase())));
  };
  return Array.isArray(value) ? value.map(drop) : drop(value);
}

function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.every((item) => isScimObject(item) && Object.keys(item).length === 0);
  return isScimObject(value) && Object.keys(value).length === 0;
}

/** Groups the selectors by key: `null` = the whole attribute, else the named sub-attributes. */
function byKey(list: readonly Selector[]): Map<string, Set<string> | null> {
  const map = new Map<string, Set<string> | null>();
  for (const { key, sub } of list) {
    const seen = map.get(key);
    if (sub === null || seen === null) map.set(key, null);
    else map.set(key, (seen ?? new Set<string>()).add(sub));
  }
  return map;
}

function include(resource: Record<string, unknown>, wanted: Map<string, Set<string> | null>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    const lower = key.toLowerCase();
    if (ALWAYS.has(lower)) out[key] = value;
    else if (wanted.has(lower)) {
      const subs = wanted.get(lower) ?? null;
      const picked = subs === null ? value : pickSubs(value, subs);
      if (!isEmpty(picked)) out[key] = picked;
    }
  }
  return out;
}

function exclude(
  resource: Record<string, unknown>,
  unwanted: Map<string, Set<string> | null>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    const lower = key.toLowerCase();
    if (ALWAYS.has(lower) || !unwanted.has(lower)) out[key] = value;
    else {
      const subs = unwanted.get(lower) ?? null;
      if (subs === null) continue;
      const kept = dropSubs(value, subs);
      if (!isEmpty(kept)) out[key] = kept;
    }
  }
  return out;
}

/**
 * Applies `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5, §3.9) to a rendered User or Group.
 * Names are case-insensitive, may carry the resource's schema URN (or, for Users, the enterprise
 * extension URN), and may name a sub-attribute (`name.givenName`, `emails.value`,
 * `urn:…:enterprise:2.0:User:department`). `id`, `schemas` and `meta` are always returned;
 * `attributes` wins when both are given; unknown names select nothing. `schemas` drops the
 * enterprise URN when the projection left no extension object.
 *
 * @example
 * projectScimResource(group, { excludedAttributes: 'members' }, 'Group'); // Entra: no members
 * projectScimResource(user, { attributes: 'userName,name.givenName' }, 'User');
 */
export function projectScimResource(
  resource: Record<string, unknown>,
  params: ScimProjectionParams,
  kind: 'User' | 'Group',
): Record<string, unknown> {
  const attributes = params.attributes?.trim() ?? '';
  const excluded = params.excludedAttributes?.trim() ?? '';
  let out: Record<string, unknown>;
  if (attributes !== '') out = include(resource, byKey(selectors(attributes, kind)));
  else if (excluded !== '') out = exclude(resource, byKey(selectors(excluded, kind)));
  else return resource;
  const schemas = out['schemas'];
  if (Array.isArray(schemas) && !(SCIM_ENTERPRISE_USER_SCHEMA in out)) {
    out['schemas'] = schemas.filter((schema) => schema !== SCIM_ENTERPRISE_USER_SCHEMA);
  }
  return out;
}
