import type { ScimEnterpriseUser, ScimName } from '../../store/identity-scim.records.js';

/**
 * Schema URN of the core User resource (RFC 7643 §4.1).
 *
 * @example
 * renderedUser.schemas[0] === SCIM_USER_SCHEMA;
 */
export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
/**
 * Schema URN of the enterprise User extension (RFC 7643 §4.3); also the key of its object in a User.
 *
 * @example
 * body[SCIM_ENTERPRISE_USER_SCHEMA]; // { department: 'Sales' }
 */
export const SCIM_ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
/**
 * Schema URN of Tessera's read-only User extension: `{ userId }`, the identity user the SCIM user
 * provisions (the id the identity routes — memberships, audit — use). Always returned.
 *
 * @example
 * body[SCIM_TESSERA_IDENTITY_SCHEMA]; // { userId: '0192…' }
 */
export const SCIM_TESSERA_IDENTITY_SCHEMA = 'urn:tessera:params:scim:schemas:extension:identity:1.0:User';
/**
 * Schema URN of the core Group resource (RFC 7643 §4.2).
 *
 * @example
 * renderedGroup.schemas; // [SCIM_GROUP_SCHEMA]
 */
export const SCIM_GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** Top-level single-valued string attributes of a User that this server stores. */
export type ScimUserStringAttribute =
  | 'userName'
  | 'externalId'
  | 'displayName'
  | 'nickName'
  | 'title'
  | 'userType'
  | 'preferredLanguage'
  | 'locale'
  | 'timezone';

/**
 * Where a User attribute name (any case, optionally URN-prefixed, optionally `attr.sub`) lands:
 * a stored attribute, a read-only one (`id`, `meta`: changing it is a `mutability` error), or one
 * this server accepts and ignores (unstored attributes of the User / enterprise schemas, `password`,
 * `groups`, `schemas`, attributes of schemas it does not know — Okta sends custom ones).
 */
export type ScimUserTarget =
  | { readonly kind: 'string'; readonly attribute: ScimUserStringAttribute }
  | { readonly kind: 'active' }
  | { readonly kind: 'name'; readonly sub: keyof ScimName | null }
  | { readonly kind: 'emails'; readonly sub: 'value' | 'type' | 'primary' | null }
  | { readonly kind: 'enterprise'; readonly sub: keyof ScimEnterpriseUser | null }
  | { readonly kind: 'readOnly' }
  /**
   * Not stored: an attribute of the User / enterprise schemas (or of another schema) this server
   * ignores (`known`), or a core name no schema defines (`known: false`, a typo such as `actve`:
   * an explicit PATCH path to it is refused, never silently ignored).
   */
  | { readonly kind: 'ignored'; readonly known?: false };

const STRING_ATTRIBUTES: readonly ScimUserStringAttribute[] = [
  'userName',
  'externalId',
  'displayName',
  'nickName',
  'title',
  'userType',
  'preferredLanguage',
  'locale',
  'timezone',
];
const NAME_SUBS: readonly (keyof ScimName)[] = [
  'formatted',
  'familyName',
  'givenName',
  'middleName',
  'honorificPrefix',
  'honorificSuffix',
];
const EMAIL_SUBS = ['value', 'type', 'primary'] as const;
const ENTERPRISE_SUBS: readonly (keyof ScimEnterpriseUser)[] = [
  'employeeNumber',
  'costCenter',
  'organization',
  'division',
  'department',
];

/**
 * Finds `name` in `names` ignoring case.
 *
 * @example
 * canonicalName(['givenName', 'familyName'], 'GIVENNAME'); // 'givenName'
 */
export function canonicalName<T extends string>(names: readonly T[], name: string): T | undefined {
  const lower = name.toLowerCase();
  return names.find((candidate) => candidate.toLowerCase() === lower);
}

/** A name split into its schema URN (lower-cased, or `null`), attribute and optional sub-attribute. */
export interface ScimAttributeName {
  readonly schema: string | null;
  readonly attribute: string;
  readonly sub: string | null;
  /** More than one dot after the attribute (`name.givenName.x`): never a valid SCIM path. */
  readonly tooDeep: boolean;
}

/**
 * Splits `urn:…:User:name.givenName` / `name.givenName` / `emails` into schema, attribute and
 * sub-attribute. A bare known schema URN (`urn:…:enterprise:2.0:User`) yields `attribute: ''`.
 *
 * @example
 * splitScimAttributeName('urn:ietf:params:scim:schemas:core:2.0:User:name.givenName', [SCIM_USER_SCHEMA]);
 * // { schema: 'urn:ietf:params:scim:schemas:core:2.0:user', attribute: 'name', sub: 'givenName', tooDeep: false }
 */
export function splitScimAttributeName(text: string, knownSchemas: readonly string[]): ScimAttributeName {
  const lower = text.toLowerCase();
  let schema: string | null = null;
  let rest = text;
  const known = knownSchemas.find((urn) => lower === urn.toLowerCase() || lower.startsWith(`${urn.toLowerCase()}:`));
  if (known !== undefined) {
    schema = known.toLowerCase();
    rest = text.slice(Math.min(known.length + 1, text.length));
  } else if (lower.startsWith('urn:')) {
    // An unknown schema: the attribute name follows its last colon (attribute names have none).
    const colon = text.lastIndexOf(':');
    schema = lower.slice(0, colon);
    rest = text.slice(colon + 1);
  }
  const parts = rest.split('.');
  return { schema, attribute: parts[0] ?? '', sub: parts[1] ?? null, tooDeep: parts.length > 2 };
}

function coreTarget(attribute: string, sub: string | null): ScimUserTarget | 'invalid' {
  const lower = attribute.toLowerCase();
  if (lower === 'id' || lower === 'meta') return { kind: 'readOnly' };
  if (lower === 'active') return sub === null ? { kind: 'active' } : 'invalid';
  const simple = canonicalName(STRING_ATTRIBUTES, attribute);
  if (simple !== undefined) return sub === null ? { kind: 'string', attribute: simple } : 'invalid';
  if (lower === 'name') {
    if (sub === null) return { kind: 'name', sub: null };
    const nameSub = canonicalName(NAME_SUBS, sub);
    return nameSub === undefined ? { kind: 'ignored' } : { kind: 'name', sub: nameSub };
  }
  if (lower === 'emails') {
    if (sub === null) return { kind: 'emails', sub: null };
    const emailSub = canonicalName(EMAIL_SUBS, sub);
    // `display` and other sub-attributes of emails are not stored.
    return emailSub === undefined ? { kind: 'ignored' } : { kind: 'emails', sub: emailSub };
  }
  return UNSTORED_CORE.includes(lower) ? { kind: 'ignored' } : { kind: 'ignored', known: false };
}

/** RFC 7643 §4.1 User attributes this server does not store (lower-cased). */
const UNSTORED_CORE = [
  'password',
  'profileurl',
  'phonenumbers',
  'ims',
  'photos',
  'entitlements',
  'roles',
  'x509certificates',
  'groups',
  'addresses',
  'schemas',
];

/**
 * Resolves a User attribute name (case-insensitive; `attr`, `attr.sub`, URN-prefixed) to where it is
 * stored. Returns `'invalid'` for names no SCIM path can have (a sub-attribute of a simple stored
 * attribute, more than one level of sub-attributes, an empty name).
 *
 * @example
 * resolveScimUserTarget('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department');
 * // { kind: 'enterprise', sub: 'department' }
 * resolveScimUserTarget('phoneNumbers'); // { kind: 'ignored' }
 */
export function resolveScimUserTarget(text: string): ScimUserTarget | 'invalid' {
  const split = splitScimAttributeName(text, [SCIM_USER_SCHEMA, SCIM_ENTERPRISE_USER_SCHEMA]);
  if (split.tooDeep) return 'invalid';
  if (split.schema === SCIM_ENTERPRISE_USER_SCHEMA.toLowerCase()) {
    if (split.attribute === '') return { kind: 'enterprise', sub: null };
    const sub = canonicalName(ENTERPRISE_SUBS, split.attribute);
    if (sub === undefined) return { kind: 'ignored' };
    return split.sub === null ? { kind: 'enterprise', sub } : 'invalid';
  }
  if (split.attribute === '') return split.schema === null ? 'invalid' : { kind: 'ignored' };
  if (split.schema !== null && split.schema !== SCIM_USER_SCHEMA.toLowerCase()) return { kind: 'ignored' };
  return coreTarget(split.attribute, split.sub);
}

/**
 * The stored name sub-attributes, in schema order.
 *
 * @example
 * SCIM_NAME_SUBS.includes('givenName'); // true
 */
export const SCIM_NAME_SUBS = NAME_SUBS;
/**
 * The stored enterprise sub-attributes, in schema order (`manager` is not stored).
 *
 * @example
 * SCIM_ENTERPRISE_SUBS.includes('department'); // true
 */
export const SCIM_ENTERPRISE_SUBS = ENTERPRISE_SUBS;
