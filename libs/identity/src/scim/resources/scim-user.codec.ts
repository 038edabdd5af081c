import type { ScimUserAttributes, ScimUserGroup, ScimUserRecord } from '../../store/identity-scim.records.js';
import { invalidSyntax, invalidValue } from '../scim.errors.js';
import { assignScimUserAttribute, EMPTY_SCIM_USER } from './scim-user.assign.js';
import {
  resolveScimUserTarget,
  SCIM_ENTERPRISE_USER_SCHEMA,
  SCIM_ENTERPRISE_SUBS,
  SCIM_NAME_SUBS,
  SCIM_TESSERA_IDENTITY_SCHEMA,
  SCIM_USER_SCHEMA,
} from './scim-user.schema.js';
import { isScimObject } from './scim-values.js';

/**
 * Decodes the body of a User create (POST) or replace (PUT) into the attributes this server stores.
 *
 * - Attribute names are case-insensitive and may carry their schema URN; the enterprise extension
 *   is the object under its URN key.
 * - `schemas` is not checked (clients differ); `id`, `meta` and `groups` from the client are ignored
 *   (read-only); `password` is accepted and discarded (Okta sends a placeholder); attributes of the
 *   User / enterprise schemas this server does not store and attributes of other schemas are ignored.
 * - `userName` is required (1..1024, no control characters); `active` defaults to `true` and takes
 *   `"True"`/`"False"`; `emails` ≤ 20 with at most one primary; a single object where an array is
 *   expected and a one-item array where a single value is expected are accepted (Entra legacy).
 *
 * Throws `invalidSyntax` for a body that is no object and `invalidValue` for a value of the wrong
 * type or out of bounds.
 *
 * @example
 * decodeScimUser({
 *   schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
 *   userName: 'ada@example.com',
 *   name: { givenName: 'Ada', familyName: 'Lovelace' },
 *   emails: [{ primary: true, value: 'ada@example.com', type: 'work' }],
 *   password: 'placeholder',
 * }).userName; // 'ada@example.com'
 */
export function decodeScimUser(body: unknown): ScimUserAttributes {
  if (!isScimObject(body)) throw invalidSyntax('The request body must be a JSON object');
  let user = EMPTY_SCIM_USER;
  for (const [key, value] of Object.entries(body)) {
    const target = resolveScimUserTarget(key);
    // Names no attribute can have and read-only attributes are ignored in a full representation.
    if (target === 'invalid' || target.kind === 'readOnly') continue;
    user = assignScimUserAttribute(user, target, value, 'replace');
  }
  if (user.userName === '') throw invalidValue('userName is required');
  return user;
}

function setOnly(values: object, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = (values as Record<string, unknown>)[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

/**
 * The `meta` attribute of a resource (RFC 7643 §3.1): `location` is `<baseUrl>/Users/<id>` or
 * `<baseUrl>/Groups/<id>`, `version` the weak ETag `W/"<version>"`.
 *
 * @example
 * renderScimMeta('Group', group, 'https://idp.example.com/scim/v2').version; // 'W/"3"'
 */
export function renderScimMeta(
  resourceType: 'User' | 'Group',
  record: { readonly id: string; readonly createdAt: Date; readonly updatedAt: Date; readonly version: number },
  baseUrl: string,
): Record<string, unknown> {
  return {
    resourceType,
    created: record.createdAt.toISOString(),
    lastModified: record.updatedAt.toISOString(),
    location: `${baseUrl}/${resourceType}s/${record.id}`,
    version: `W/"${record.version}"`,
  };
}

const OPTIONAL_STRINGS = [
  'displayName',
  'nickName',
  'title',
  'userType',
  'preferredLanguage',
  'locale',
  'timezone',
] as const;

/**
 * The full SCIM representation of a User (RFC 7643 §4.1): `schemas` (the enterprise URN only when an
 * enterprise value is set), `id`, `externalId`, `userName`, the set `name` sub-attributes, the other
 * set attributes, `active`, `emails`, the read-only `groups` (`$ref` to each group) and `meta`.
 * Never a password: none is stored.
 *
 * @example
 * renderScimUser(record, [{ userId: record.id, groupId: 'g1', display: 'Engineering' }], 'https://idp.example.com/scim/v2');
 * // { schemas: [...], id, userName, active, groups: [{ value: 'g1', display: 'Engineering', $ref: '…/Groups/g1' }], meta: {...} }
 */
export function renderScimUser(
  record: ScimUserRecord,
  groups: readonly ScimUserGroup[],
  baseUrl: string,
): Record<string, unknown> {
  const enterprise = setOnly(record.enterprise, SCIM_ENTERPRISE_SUBS);
  const hasEnterprise = Object.keys(enterprise).length > 0;
  const name = setOnly(record.name, SCIM_NAME_SUBS);
  const out: Record<string, unknown> = {
    schemas: hasEnterprise
      ? [SCIM_USER_SCHEMA, SCIM_ENTERPRISE_USER_SCHEMA, SCIM_TESSERA_IDENTITY_SCHEMA]
      : [SCIM_USER_SCHEMA, SCIM_TESSERA_IDENTITY_SCHEMA],
    id: record.id,
  };
  if (record.externalId !== null) out['externalId'] = record.externalId;
  out['userName'] = record.userName;
  if (Object.keys(name).length > 0) out['name'] = name;
  Object.assign(out, setOnly(record, OPTIONAL_STRINGS));
  out['active'] = record.active;
  if (record.emails.length > 0) {
    out['emails'] = record.emails.map((email) =>
      email.type === null
        ? { value: email.value, primary: email.primary }
        : { value: email.value, type: email.type, primary: email.primary },
    );
  }
  if (groups.length > 0) {
    out['groups'] = groups.map((group) => ({
      value: group.groupId,
      display: group.display,
      $ref: `${baseUrl}/Groups/${group.groupId}`,
    }));
  }
  if (hasEnterprise) out[SCIM_ENTERPRISE_USER_SCHEMA] = enterprise;
  out[SCIM_TESSERA_IDENTITY_SCHEMA] = { userId: record.userId };
  out['meta'] = renderScimMeta('User', record, baseUrl);
  return out;
}
