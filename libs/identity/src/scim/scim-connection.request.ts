import type { ScimGroupRoleRule, ScimRole } from '../store/identity-scim.records.js';

/** `providerName` of a connection: 1..64 of `[a-z0-9_-]` (`okta`, `entra`, `generic`, ...). */
export const SCIM_PROVIDER_NAME = /^[a-z0-9_-]{1,64}$/;
const ROLES: readonly ScimRole[] = ['admin', 'publisher', 'viewer'];
const MAX_RULES = 100;
const MAX_MATCH = 1024;

/** The body of `POST …/scim/connections`. */
export interface ScimConnectionBody {
  readonly providerName: string;
  readonly groupRoles: readonly ScimGroupRoleRule[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function matchText(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_MATCH && !CONTROL.test(value);
}

function decodeRule(value: unknown): ScimGroupRoleRule | undefined {
  if (!isRecord(value) || !onlyKeys(value, ['match', 'role']) || !isRecord(value.match)) return undefined;
  const role = value.role;
  if (typeof role !== 'string' || !ROLES.includes(role as ScimRole)) return undefined;
  const match = value.match;
  const keys = Object.keys(match);
  if (keys.length !== 1) return undefined;
  if (keys[0] === 'displayName' && matchText(match.displayName)) {
    return { match: { displayName: match.displayName }, role: role as ScimRole };
  }
  if (keys[0] === 'externalId' && matchText(match.externalId)) {
    return { match: { externalId: match.externalId }, role: role as ScimRole };
  }
  return undefined;
}

/**
 * Decodes `{providerName, groupRoles}` (issue 15, Deliver 2): `groupRoles` is an array (may be
 * empty, ≤ 100) of `{match: {displayName} | {externalId}, role: 'admin' | 'publisher' | 'viewer'}`
 * — `owner` is refused. `undefined` for anything else (400 `request_invalid`).
 *
 * @example
 * decodeScimConnectionBody({ providerName: 'okta', groupRoles: [{ match: { displayName: 'Admins' }, role: 'admin' }] });
 */
export function decodeScimConnectionBody(json: unknown): ScimConnectionBody | undefined {
  if (!isRecord(json) || !onlyKeys(json, ['providerName', 'groupRoles'])) return undefined;
  const { providerName, groupRoles } = json;
  if (typeof providerName !== 'string' || !SCIM_PROVIDER_NAME.test(providerName)) return undefined;
  if (!Array.isArray(groupRoles) || groupRoles.length > MAX_RULES) return undefined;
  const rules: ScimGroupRoleRule[] = [];
  for (const entry of groupRoles) {
    const rule = decodeRule(entry);
    if (rule === undefined) return undefined;
    rules.push(rule);
  }
  return { providerName, groupRoles: rules };
}
