import type { ScimGroupFilterAttribute, ScimUserFilterAttribute } from './scim-filter.ast.js';

/** Value type of a SCIM attribute (RFC 7643 §2.3) as far as this server stores it. */
export type ScimAttributeType = 'string' | 'boolean' | 'dateTime' | 'reference' | 'complex';

/** What the server knows of one stored attribute. */
export interface ScimAttributeDescriptor {
  readonly type: ScimAttributeType;
  /** Compared as written (true) or case-insensitively (false); meaningful for strings and references. */
  readonly caseExact: boolean;
  /** Multi-valued (`emails`, `members`): a comparison holds when any value satisfies it. */
  readonly multiValued?: boolean;
  /** Sub-attributes of a complex attribute, keyed by their canonical name. */
  readonly subAttributes?: readonly string[];
}

/** Canonical paths of stored User attributes, the complex parents included. */
export type ScimUserAttributePath = ScimUserFilterAttribute | 'name' | 'emails' | 'enterprise' | 'meta';
/** Canonical paths of stored Group attributes, the complex parents included. */
export type ScimGroupAttributePath = ScimGroupFilterAttribute | 'members' | 'meta';

/** A name resolved to a stored attribute. */
export interface ScimStoredAttribute<P extends string> {
  readonly path: P;
  readonly descriptor: ScimAttributeDescriptor;
}

/** A name of the User / enterprise / Group schema that this server accepts but does not store. */
export interface ScimUnstoredAttribute {
  readonly unstored: true;
  /** The attribute or its parent is multi-valued (`phoneNumbers`, `phoneNumbers.value`). */
  readonly multiValued: boolean;
  /**
   * Computed by the server from other resources (`groups`): it has values, so it is ignored in a
   * body but cannot be filtered on as if absent.
   */
  readonly derived?: true;
}

/** Result of a lookup: stored, known-but-unstored, or `undefined` for a name of no schema. */
export type ScimAttributeResolution<P extends string> = ScimStoredAttribute<P> | ScimUnstoredAttribute | undefined;

/** Schema URNs (RFC 7643 §8.7). */
export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
/** The enterprise User extension (RFC 7643 §4.3). */
export const SCIM_ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
/** The Group schema. */
export const SCIM_GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

const text = (caseExact = false): ScimAttributeDescriptor => ({ type: 'string', caseExact });
const BOOLEAN: ScimAttributeDescriptor = { type: 'boolean', caseExact: false };
const DATE_TIME: ScimAttributeDescriptor = { type: 'dateTime', caseExact: false };
const NAME_PARTS = ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'];
const ENTERPRISE_PARTS = ['employeeNumber', 'costCenter', 'organization', 'division', 'department'];
const META = { type: 'complex', caseExact: false, subAttributes: ['created', 'lastModified'] } as const;

const USER_ATTRIBUTES: ReadonlyArray<readonly [ScimUserAttributePath, ScimAttributeDescriptor]> = [
  ['id', text(true)],
  ['externalId', text(true)],
  ['userName', text()],
  ['displayName', text()],
  ['nickName', text()],
  ['title', text()],
  ['userType', text()],
  ['preferredLanguage', text()],
  ['locale', text()],
  ['timezone', text()],
  ['active', BOOLEAN],
  ['name', { type: 'complex', caseExact: false, subAttributes: NAME_PARTS }],
  ...NAME_PARTS.map((part) => [`name.${part}` as ScimUserAttributePath, text()] as const),
  ['emails', { type: 'complex', caseExact: false, multiValued: true, subAttributes: ['value', 'type', 'primary'] }],
  ['emails.value', { ...text(), multiValued: true }],
  ['emails.type', { ...text(), multiValued: true }],
  ['emails.primary', { ...BOOLEAN, multiValued: true }],
  ['enterprise', { type: 'complex', caseExact: false, subAttributes: ENTERPRISE_PARTS }],
  ...ENTERPRISE_PARTS.map((part) => [`enterprise.${part}` as ScimUserAttributePath, text()] as const),
  ['meta', META],
  ['meta.created', DATE_TIME],
  ['meta.lastModified', DATE_TIME],
];

const GROUP_ATTRIBUTES: ReadonlyArray<readonly [ScimGroupAttributePath, ScimAttributeDescriptor]> = [
  ['id', text(true)],
  ['externalId', text(true)],
  ['displayName', text()],
  ['members', { type: 'complex', caseExact: false, multiValued: true, subAttributes: ['value'] }],
  ['members.value', { type: 'reference', caseExact: false, multiValued: true }],
  ['meta', META],
  ['meta.created', DATE_TIME],
  ['meta.lastModified', DATE_TIME],
];

const MULTI_VALUED_PARTS = ['value', 'display', 'type', 'primary'];
/** Known attributes this server does not store: `[name, multiValued, sub-attributes]`. */
const USER_UNSTORED: ReadonlyArray<readonly [string, boolean, readonly string[]]> = [
  ['password', false, []],
  ['profileUrl', false, []],
  ['phoneNumbers', true, MULTI_VALUED_PARTS],
  ['ims', true, MULTI_VALUED_PARTS],
  ['photos', true, MULTI_VALUED_PARTS],
  ['entitlements', true, MULTI_VALUED_PARTS],
  ['roles', true, MULTI_VALUED_PARTS],
  ['x509Certificates', true, MULTI_VALUED_PARTS],
  ['groups', true, ['value', '$ref', 'display', 'type']],
  ['addresses', true, ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type', 'primary']],
  ['meta', false, ['resourceType', 'location', 'version']],
  ['emails', true, ['display']],
  [`${SCIM_ENTERPRISE_USER_SCHEMA}:manager`, false, ['value', '$ref', 'displayName']],
];
const DERIVED = new Set(['groups']);
const GROUP_UNSTORED: ReadonlyArray<readonly [string, boolean, readonly string[]]> = [
  ['members', true, ['display', 'type', '$ref']],
  ['meta', false, ['resourceType', 'location', 'version']],
];

interface Registry<P extends string> {
  readonly stored: ReadonlyMap<string, ScimStoredAttribute<P>>;
  readonly unstored: ReadonlyMap<string, ScimUnstoredAttribute>;
  /** Lower-cased schema URN → canonical prefix (`''` for the core schema). */
  readonly prefixes: ReadonlyArray<readonly [string, string]>;
}

function registry<P extends string>(
  attributes: ReadonlyArray<readonly [P, ScimAttributeDescriptor]>,
  unstored: ReadonlyArray<readonly [string, boolean, readonly string[]]>,
  prefixes: ReadonlyArray<readonly [string, string]>,
): Registry<P> {
  // The enterprise extension is only addressable by its URN (RFC 7644 §3.10).
  const external = (path: string) =>
    path === 'enterprise'
      ? SCIM_ENTERPRISE_USER_SCHEMA
      : path.startsWith('enterprise.')
        ? `${SCIM_ENTERPRISE_USER_SCHEMA}:${path.slice('enterprise.'.length)}`
        : path;
  const stored = new Map(attributes.map(([path, descriptor]) => [external(path).toLowerCase(), { path, descriptor }]));
  const unstoredMap = new Map<string, ScimUnstoredAttribute>();
  for (const [name, multiValued, parts] of unstored) {
    const entry: ScimUnstoredAttribute = DERIVED.has(name)
      ? { unstored: true, multiValued, derived: true }
      : { unstored: true, multiValued };
    if (!stored.has(name.toLowerCase())) unstoredMap.set(name.toLowerCase(), entry);
    for (const part of parts) unstoredMap.set(`${name}.${part}`.toLowerCase(), entry);
  }
  return { stored, unstored: unstoredMap, prefixes: prefixes.map(([urn, prefix]) => [urn.toLowerCase(), prefix]) };
}

const USERS = registry(USER_ATTRIBUTES, USER_UNSTORED, [[SCIM_USER_SCHEMA, '']]);
const GROUPS = registry(GROUP_ATTRIBUTES, GROUP_UNSTORED, [[SCIM_GROUP_SCHEMA, '']]);

function resolve<P extends string>(table: Registry<P>, name: string): ScimAttributeResolution<P> {
  let key = name.toLowerCase();
  for (const [urn, prefix] of table.prefixes) {
    if (key.startsWith(`${urn}:`)) key = prefix + key.slice(urn.length + 1);
  }
  return table.stored.get(key) ?? table.unstored.get(key);
}

/**
 * Resolves a User attribute name (any case, optionally URN-prefixed: `userName`,
 * `urn:ietf:params:scim:schemas:core:2.0:User:name.familyName`,
 * `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department`) to its canonical path
 * and descriptor; `{ unstored: true }` for attributes of the User / enterprise schemas this server
 * does not store; `undefined` for names of no schema.
 *
 * @example
 * resolveScimUserAttribute('Emails.Value'); // { path: 'emails.value', descriptor: { type: 'string', caseExact: false, multiValued: true } }
 * resolveScimUserAttribute('phoneNumbers'); // { unstored: true, multiValued: true }
 */
export function resolveScimUserAttribute(name: string): ScimAttributeResolution<ScimUserAttributePath> {
  return resolve(USERS, name);
}

/**
 * Resolves a Group attribute name (any case, optionally prefixed with the Group schema URN) like
 * {@link resolveScimUserAttribute}.
 *
 * @example
 * resolveScimGroupAttribute('DISPLAYNAME'); // { path: 'displayName', descriptor: { type: 'string', caseExact: false } }
 */
export function resolveScimGroupAttribute(name: string): ScimAttributeResolution<ScimGroupAttributePath> {
  return resolve(GROUPS, name);
}

/**
 * True when a resolution names a stored attribute.
 *
 * @example
 * const found = resolveScimUserAttribute('active');
 * if (isStoredScimAttribute(found)) console.log(found.path);
 */
export function isStoredScimAttribute<P extends string>(
  resolution: ScimAttributeResolution<P>,
): resolution is ScimStoredAttribute<P> {
  return resolution !== undefined && !('unstored' in resolution);
}
