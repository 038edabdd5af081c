import type { ScimGroupStep } from '../../store/identity-scim.port.js';
import { invalidFilter, invalidPath, invalidValue, mutability, noTarget } from '../scim.errors.js';
import { readScimGroupName, readScimMemberIds, SCIM_GROUP_MEMBERS_MAX } from '../resources/scim-group.codec.js';
import { SCIM_GROUP_SCHEMA, splitScimAttributeName } from '../resources/scim-user.schema.js';
import { isScimObject, readScimString, scimSingle } from '../resources/scim-values.js';
import { readScimPatchBody, type ScimPatchOperation } from './scim-patch.body.js';
import { parseScimPatchPath, type ScimItemFilter } from './scim-patch.path.js';

type GroupAttribute = 'displayname' | 'externalid' | 'members' | 'readonly' | 'unknown';

/** The Group attribute a name (any case, optionally `urn:…:core:2.0:Group:`-prefixed) designates. */
function groupAttribute(text: string): GroupAttribute {
  const split = splitScimAttributeName(text, [SCIM_GROUP_SCHEMA]);
  if (split.schema !== null && split.schema !== SCIM_GROUP_SCHEMA.toLowerCase()) return 'unknown';
  if (split.sub !== null || split.tooDeep) return 'unknown';
  const name = split.attribute.toLowerCase();
  if (name === 'displayname' || name === 'externalid' || name === 'members') return name;
  return name === 'id' || name === 'meta' ? 'readonly' : 'unknown';
}

/** A set step for `displayName` / `externalId`, or member steps for `members`. */
function setStep(attribute: GroupAttribute, op: 'add' | 'replace', value: unknown): ScimGroupStep {
  switch (attribute) {
    case 'displayname':
      return { kind: 'rename', displayName: readScimGroupName(value) };
    case 'externalid':
      return { kind: 'externalId', externalId: readScimString(value) };
    case 'members':
      return op === 'add'
        ? { kind: 'add', memberIds: readScimMemberIds(value) }
        : { kind: 'replaceMembers', memberIds: readScimMemberIds(value) };
    case 'readonly':
      throw mutability('id and meta are read-only');
    case 'unknown':
      throw invalidPath();
  }
}

/**
 * Pathless `add` / `replace`: `{displayName}`, `{id, displayName}` (Okta; `id` ignored), `{members}`,
 * `{externalId}`. Keys this server does not know are ignored (Okta may send custom group attributes).
 */
function pathlessSteps(operation: ScimPatchOperation): ScimGroupStep[] {
  if (operation.op === 'remove') throw noTarget('remove needs a path');
  const value = scimSingle(operation.value);
  if (!isScimObject(value)) throw invalidValue('A PATCH without path needs an object value');
  const steps: ScimGroupStep[] = [];
  for (const [key, item] of Object.entries(value)) {
    const attribute = groupAttribute(key);
    if (attribute === 'readonly' || attribute === 'unknown') continue;
    steps.push(setStep(attribute, operation.op, item));
  }
  return steps;
}

/**
 * The member ids a `members[…]` filter names: `value eq "id"` or such comparisons joined by `or`.
 * Any other filter cannot be applied without reading the members → `invalidFilter` (never a silent 2xx).
 */
function filterMemberIds(filter: ScimItemFilter, into: Set<string>): Set<string> {
  if (filter.kind === 'or') return filterMemberIds(filter.right, filterMemberIds(filter.left, into));
  if (
    filter.kind !== 'compare' ||
    filter.op !== 'eq' ||
    filter.attribute !== 'value' ||
    typeof filter.value !== 'string' ||
    filter.value === ''
  ) {
    throw invalidFilter('A members filter must compare value with eq');
  }
  // Ids are lower-case UUIDs: `members[value eq "<UPPER>"]` removes that member too.
  return into.add(filter.value.toLowerCase());
}

function pathSteps(operation: ScimPatchOperation, text: string): ScimGroupStep[] {
  const path = parseScimPatchPath(text);
  const attribute = groupAttribute(path.attribute);
  if (path.filter !== null) {
    if (attribute !== 'members' || path.sub !== null) throw invalidPath();
    if (operation.op !== 'remove') throw invalidPath('Only remove takes a members filter');
    // Okta: `members[value eq "id"]` removes exactly that member (any `value` sent along is ignored).
    return [{ kind: 'remove', memberIds: [...filterMemberIds(path.filter, new Set())] }];
  }
  if (operation.op !== 'remove') return [setStep(attribute, operation.op, operation.value)];
  switch (attribute) {
    case 'members': {
      // Entra: `remove members` with a `value` array removes exactly those; without value, all of them.
      const value = operation.value;
      if (value === undefined || value === null) return [{ kind: 'replaceMembers', memberIds: [] }];
      return [{ kind: 'remove', memberIds: readScimMemberIds(value) }];
    }
    case 'externalid':
      return [{ kind: 'externalId', externalId: null }];
    case 'displayname':
      throw mutability('displayName is required');
    case 'readonly':
      throw mutability('id and meta are read-only');
    case 'unknown':
      throw invalidPath();
  }
}

/**
 * Plans a Group PATCH request (RFC 7644 §3.5.2) as ordered store steps, without reading the group:
 * additions are unions and removals exact, so the store applies them under the group's row lock.
 *
 * - `add` `members` (array, or a single object) → `add` (members already there are skipped);
 * - `remove` `members[value eq "id"]` (Okta; also `value eq "a" or value eq "b"`) → `remove` of
 *   exactly those; `remove` `members` with a `value` array (Entra) → exactly those; `remove`
 *   `members` without value → every member (`replaceMembers []`);
 * - `replace` `members` → `replaceMembers`;
 * - `replace` (or `add`) `displayName` / `externalId`, by path or pathless object (`{displayName}`,
 *   Okta's `{id, displayName}` with `id` ignored); `remove` `externalId` clears it.
 *
 * Refusals: the envelope's (see `readScimPatchBody`); an unknown path → `invalidPath`; a malformed
 * or unsupported members filter → `invalidFilter`; `id` / `meta` or removing `displayName` →
 * `mutability`; `remove` without path → `noTarget`; bad values → `invalidValue`; more than 10,000
 * member ids in one request → `invalidValue`.
 *
 * @example
 * planScimGroupPatch({
 *   schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
 *   Operations: [{ op: 'remove', path: 'members[value eq "0190…"]' }],
 * }); // [{ kind: 'remove', memberIds: ['0190…'] }]
 */
export function planScimGroupPatch(body: unknown): ScimGroupStep[] {
  const steps = readScimPatchBody(body).flatMap((operation) =>
    operation.path === null ? pathlessSteps(operation) : pathSteps(operation, operation.path),
  );
  const named = steps.reduce((total, step) => total + ('memberIds' in step ? step.memberIds.length : 0), 0);
  if (named > SCIM_GROUP_MEMBERS_MAX) throw invalidValue('Too many members');
  return steps;
}
