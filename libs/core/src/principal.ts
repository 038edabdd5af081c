import type { Exchange } from '@tessera/web';
import { CoreConfigError } from './core.errors.js';

/**
 * JSON-safe, flat extra data of a principal (e.g. a key label); stored as-is with a session.
 *
 * @example
 * const attributes: CorePrincipalAttributes = { label: 'grafana-prod', rotated: false };
 */
export type CorePrincipalAttributes = Readonly<Record<string, string | number | boolean>>;

/**
 * Who a core-protected request runs as. A core principal is never an identity session and never
 * carries organization scope: `roles` and `permissions` are flat strings the application defines.
 *
 * @example
 * const principal: CorePrincipal = { kind: 'api_key', id: 'billing-webhook', roles: [], permissions: ['webhook.deliver'] };
 */
export interface CorePrincipal {
  /** What authenticated, e.g. `api_key`, `basic`, `metrics_client` (`^[a-z][a-z0-9_.-]{0,63}$`). */
  readonly kind: string;
  /** Stable id within `kind` (1–255 characters, no control characters). */
  readonly id: string;
  /** Role names, matched exactly (no wildcards). */
  readonly roles: readonly string[];
  /** Permission names, matched exactly (no wildcards). */
  readonly permissions: readonly string[];
  readonly attributes?: CorePrincipalAttributes;
}

/**
 * The `exchange.attributes` key under which core middleware and `CoreAuthGuard` store the
 * authenticated {@link CorePrincipal}.
 *
 * @example
 * const principal = exchange.attributes.get(CORE_PRINCIPAL_ATTRIBUTE) as CorePrincipal | undefined;
 */
export const CORE_PRINCIPAL_ATTRIBUTE = 'tessera.core.principal';

const KIND = /^[a-z][a-z0-9_.-]{0,63}$/;
/** Role and permission names: no whitespace, no `*`, so nothing looks like a pattern. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$/;
const ATTRIBUTE_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_NAMES = 256;
const MAX_ATTRIBUTES = 32;

/**
 * Input of {@link createCorePrincipal}: roles and permissions default to none.
 *
 * @example
 * const init: CorePrincipalInit = { kind: 'basic', id: 'prometheus', permissions: ['metrics.read'] };
 */
export interface CorePrincipalInit {
  kind: string;
  id: string;
  roles?: readonly string[];
  permissions?: readonly string[];
  attributes?: CorePrincipalAttributes;
}

/**
 * Validates and freezes a principal (duplicates removed); throws {@link CoreConfigError}
 * (`invalid_principal`) on anything malformed, so a bad provider fails closed.
 *
 * @example
 * const principal = createCorePrincipal({ kind: 'api_key', id: 'grafana', permissions: ['metrics.read'] });
 */
export function createCorePrincipal(init: CorePrincipalInit): CorePrincipal {
  if (init === null || typeof init !== 'object') fail('a principal must be an object');
  if (typeof init.kind !== 'string' || !KIND.test(init.kind)) fail(`kind must match ${KIND}`);
  if (typeof init.id !== 'string' || init.id.length === 0 || init.id.length > 255 || CONTROL.test(init.id)) {
    fail('id must be 1-255 characters without control characters');
  }
  const principal: { -readonly [K in keyof CorePrincipal]: CorePrincipal[K] } = {
    kind: init.kind,
    id: init.id,
    roles: names(init.roles, 'roles'),
    permissions: names(init.permissions, 'permissions'),
  };
  if (init.attributes !== undefined) principal.attributes = attributes(init.attributes);
  return Object.freeze(principal);
}

/**
 * The principal core middleware or `CoreAuthGuard` stored on an exchange, if any.
 *
 * @example
 * router.get('/metrics', requireCorePermission('metrics.read', provider), (ex) =>
 *   ex.respond({ body: { caller: getCorePrincipal(ex)?.id } }));
 */
export function getCorePrincipal(exchange: Exchange): CorePrincipal | undefined {
  return exchange.attributes.get(CORE_PRINCIPAL_ATTRIBUTE) as CorePrincipal | undefined;
}

/**
 * `true` when `name` is a valid role or permission name.
 *
 * @example
 * isCoreAccessName('metrics.read'); // true
 * isCoreAccessName('metrics.*'); // false
 */
export function isCoreAccessName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name);
}

function names(list: readonly string[] | undefined, field: string): readonly string[] {
  if (list === undefined) return Object.freeze([]);
  if (!Array.isArray(list)) fail(`${field} must be an array of strings`);
  if (list.length > MAX_NAMES) fail(`${field} holds more than ${MAX_NAMES} entries`);
  for (const name of list) {
    if (!isCoreAccessName(name)) fail(`${field} entry ${JSON.stringify(name)} must match ${NAME}`);
  }
  return Object.freeze([...new Set(list)]);
}

function attributes(input: CorePrincipalAttributes): CorePrincipalAttributes {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) fail('attributes must be a plain object');
  const entries = Object.entries(input);
  if (entries.length > MAX_ATTRIBUTES) fail(`attributes hold more than ${MAX_ATTRIBUTES} keys`);
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of entries) {
    if (!ATTRIBUTE_KEY.test(key)) fail(`attribute key ${JSON.stringify(key)} must match ${ATTRIBUTE_KEY}`);
    const ok =
      (typeof value === 'string' && value.length <= 1024) ||
      (typeof value === 'number' && Number.isFinite(value)) ||
      typeof value === 'boolean';
    if (!ok) fail(`attribute ${key} must be a string (≤ 1024 characters), a finite number or a boolean`);
    out[key] = value;
  }
  return Object.freeze(out);
}

function fail(message: string): never {
  throw new CoreConfigError('invalid_principal', `Invalid core principal: ${message}`);
}
