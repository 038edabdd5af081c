import type { ScimGroupMember, ScimGroupRecord } from '../../store/identity-scim.records.js';
import { invalidSyntax, invalidValue } from '../scim.errors.js';
import { renderScimMeta } from './scim-user.codec.js';
import { SCIM_GROUP_SCHEMA } from './scim-user.schema.js';
import { isScimObject, readScimString, scimList, scimProperty } from './scim-values.js';

/**
 * Most member ids a group create / replace body, or one PATCH request, may name.
 *
 * @example
 * if (ids.length > SCIM_GROUP_MEMBERS_MAX) throw invalidValue('Too many members');
 */
export const SCIM_GROUP_MEMBERS_MAX = 10_000;

/** What a Group create (POST) or replace (PUT) sets. */
export interface ScimGroupInput {
  readonly displayName: string;
  readonly externalId: string | null;
  /** SCIM user ids, duplicates collapsed, in request order. */
  readonly memberIds: readonly string[];
}

/**
 * The member ids of a `members` value: a list (or, Entra legacy, a single object) of `{value}`
 * objects whose `value` is a SCIM user id; `display`, `$ref`, `type` are ignored; duplicates are
 * collapsed; more than 10,000 → `invalidValue`.
 *
 * @example
 * readScimMemberIds([{ value: 'u1', display: 'ada' }, { value: 'u1' }]); // ['u1']
 */
export function readScimMemberIds(raw: unknown): readonly string[] {
  const items = scimList(raw);
  if (items.length > SCIM_GROUP_MEMBERS_MAX) throw invalidValue('Too many members');
  const ids = new Set<string>();
  for (const item of items) {
    if (!isScimObject(item)) throw invalidValue('A member must be an object with a value');
    const id = readScimString(scimProperty(item, 'value'));
    if (id === null) throw invalidValue('A member must be an object with a value');
    // Ids are lower-case UUIDs; clients that upper-case them still name the same member.
    ids.add(id.toLowerCase());
  }
  return [...ids];
}

/**
 * `displayName` of a group: required, 1..1024 characters.
 *
 * @example
 * readScimGroupName('Engineering'); // 'Engineering'
 */
export function readScimGroupName(raw: unknown): string {
  const name = readScimString(raw);
  if (name === null) throw invalidValue('displayName is required');
  return name;
}

/**
 * Decodes the body of a Group create or replace: `displayName` (required), `externalId`, `members`.
 * Names are case-insensitive and may carry the Group schema URN; `id`, `meta`, `schemas` and
 * attributes of other schemas are ignored.
 *
 * @example
 * decodeScimGroup({
 *   schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
 *   displayName: 'Engineering',
 *   members: [{ value: '0190…', display: 'ada@example.com' }],
 * }); // { displayName: 'Engineering', externalId: null, memberIds: ['0190…'] }
 */
export function decodeScimGroup(body: unknown): ScimGroupInput {
  if (!isScimObject(body)) throw invalidSyntax('The request body must be a JSON object');
  const prefix = `${SCIM_GROUP_SCHEMA.toLowerCase()}:`;
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const lower = key.toLowerCase();
    fields[lower.startsWith(prefix) ? lower.slice(prefix.length) : lower] = value;
  }
  return {
    displayName: readScimGroupName(fields['displayname']),
    externalId: readScimString(fields['externalid']),
    memberIds: readScimMemberIds(fields['members']),
  };
}

/**
 * The full SCIM representation of a Group (RFC 7643 §4.2): `schemas`, `id`, `externalId` (when
 * set), `displayName`, `members` (`[{value, display, $ref}]`, empty when none) and `meta`.
 *
 * @example
 * renderScimGroup(group, [{ groupId: group.id, userId: 'u1', display: 'ada@example.com' }], 'https://idp.example.com/scim/v2');
 */
export function renderScimGroup(
  record: ScimGroupRecord,
  members: readonly ScimGroupMember[],
  baseUrl: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { schemas: [SCIM_GROUP_SCHEMA], id: record.id };
  if (record.externalId !== null) out['externalId'] = record.externalId;
  out['displayName'] = record.displayName;
  out['members'] = members.map((member) => ({
    value: member.userId,
    display: member.display,
    $ref: `${baseUrl}/Users/${member.userId}`,
  }));
  out['meta'] = renderScimMeta('Group', record, baseUrl);
  return out;
}
