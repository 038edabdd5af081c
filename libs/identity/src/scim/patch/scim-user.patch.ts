import type { ScimEmail, ScimUserAttributes } from '../../store/identity-scim.records.js';
import { invalidPath, invalidValue, mutability, noTarget } from '../scim.errors.js';
import {
  addScimEmails,
  assignScimUserAttribute,
  removeScimEmailSub,
  removeScimUserAttribute,
  setScimEmailSub,
} from '../resources/scim-user.assign.js';
import { resolveScimUserTarget, type ScimUserTarget } from '../resources/scim-user.schema.js';
import { checkScimEmails, isScimObject, readScimEmail, readScimEmails, scimSingle } from '../resources/scim-values.js';
import { readScimPatchBody, type ScimPatchOperation } from './scim-patch.body.js';
import { matchScimItem, parseScimPatchPath, scimFilterEqualities, type ScimItemFilter } from './scim-patch.path.js';

function resolve(text: string): ScimUserTarget {
  const target = resolveScimUserTarget(text);
  if (target === 'invalid') throw invalidPath();
  return target;
}

/** Pathless `add` / `replace`: every key of the object value is a path (dotted and URN-prefixed keys too). */
function applyPathless(user: ScimUserAttributes, operation: ScimPatchOperation): ScimUserAttributes {
  if (operation.op === 'remove') throw noTarget('remove needs a path');
  const value = scimSingle(operation.value);
  if (!isScimObject(value)) throw invalidValue('A PATCH without path needs an object value');
  let next = user;
  for (const [key, item] of Object.entries(value)) {
    // A whole-resource object may echo `schemas`, `id` and `meta` (Okta does for groups): read-only
    // values inside a pathless object are ignored as RFC 7644 §3.5.1 says for PUT; an explicit
    // path to them stays a `mutability` error.
    if (['schemas', 'id', 'meta'].includes(key.toLowerCase())) continue;
    // A key with a value filter (`emails[type eq "work"].value`) is a full path: never dropped silently.
    next = key.includes('[')
      ? applyOperation(next, { op: operation.op, path: key, value: item })
      : assignScimUserAttribute(next, resolve(key), item, operation.op);
  }
  return next;
}

function emailItem(email: ScimEmail): Record<string, unknown> {
  return email.type === null
    ? { value: email.value, primary: email.primary }
    : { value: email.value, type: email.type, primary: email.primary };
}

/** `emails[filter]` with an object value: matched emails are replaced; none matched → added (Entra). */
function replaceFilteredEmails(
  emails: readonly ScimEmail[],
  match: (email: ScimEmail) => boolean,
  raw: unknown,
  seed: Readonly<Record<string, unknown>>,
): readonly ScimEmail[] {
  const value = scimSingle(raw);
  if (!isScimObject(value)) throw invalidValue('An email must be an object');
  const created = readScimEmail({ ...seed, ...value });
  if (!emails.some(match)) return addScimEmails(emails, [created]);
  const kept: ScimEmail[] = [];
  let placed = false;
  for (const email of emails) {
    if (!match(email)) kept.push(email);
    else if (!placed) {
      kept.push(created);
      placed = true;
    }
  }
  const next = created.primary ? kept.map((email) => (email === created ? email : { ...email, primary: false })) : kept;
  return checkScimEmails(next);
}

/** A path with a value filter: only `emails[…]` is stored; filters on unstored attributes are ignored. */
function applyFiltered(
  user: ScimUserAttributes,
  operation: ScimPatchOperation,
  attribute: string,
  filter: ScimItemFilter,
  sub: string | null,
): ScimUserAttributes {
  const base = resolve(attribute);
  if (base.kind === 'ignored') return user;
  if (base.kind !== 'emails' || base.sub !== null) throw invalidPath('Only multi-valued attributes take a filter');
  const target = sub === null ? base : resolve(`${attribute}.${sub}`);
  if (target.kind !== 'emails') return user;
  const match = (email: ScimEmail): boolean => matchScimItem(filter, emailItem(email));
  if (operation.op === 'remove') return { ...user, emails: removeScimEmailSub(user.emails, match, target.sub) };
  const seed = scimFilterEqualities(filter);
  const emails =
    target.sub === null
      ? replaceFilteredEmails(user.emails, match, operation.value, seed)
      : setScimEmailSub(user.emails, match, target.sub, operation.value, seed);
  return { ...user, emails };
}

function applyOperation(user: ScimUserAttributes, operation: ScimPatchOperation): ScimUserAttributes {
  if (operation.path === null) return applyPathless(user, operation);
  const path = parseScimPatchPath(operation.path);
  if (path.filter !== null) return applyFiltered(user, operation, path.attribute, path.filter, path.sub);
  const target = resolve(path.attribute);
  if (target.kind === 'readOnly') throw mutability('id and meta are read-only');
  if (target.kind === 'ignored' && target.known === false) throw invalidPath('The PATCH path names no User attribute');
  if (operation.op !== 'remove') return assignScimUserAttribute(user, target, operation.value, operation.op);
  if (target.kind === 'emails' && target.sub === null && operation.value !== undefined && operation.value !== null) {
    // `remove emails` with a value list (as Entra does for members) removes exactly those values.
    const listed = new Set(readScimEmails(operation.value).map((email) => email.value.toLowerCase()));
    return { ...user, emails: user.emails.filter((email) => !listed.has(email.value.toLowerCase())) };
  }
  return removeScimUserAttribute(user, target);
}

/**
 * Applies a SCIM PATCH request (RFC 7644 §3.5.2) to a User's stored attributes, all operations in
 * order, all or nothing (the first failing operation throws; the caller stores nothing).
 *
 * Dialects accepted (Okta, Entra and Entra's legacy shapes):
 * - `op` in any case; pathless `add` / `replace` whose object value has plain, dotted
 *   (`name.givenName`) and URN-prefixed keys
 *   (`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department`);
 * - booleans as `"True"` / `"False"`; a one-item array for a single value and a single object for
 *   an array;
 * - value-filtered paths on `emails` (`emails[type eq "work"].value`, `emails[type eq "work"]`);
 *   `replace`/`add` of such a path when no email matches adds one carrying the filter's `eq` values
 *   (`type: "work"`) — Entra sends this for a user without a work email and expects it created,
 *   where RFC 7644 would answer `noTarget`;
 * - a pathless key carrying a value filter is applied as that path; `remove emails` with a value
 *   list removes exactly those emails (removals are exact);
 * - attributes of the User / enterprise schemas this server does not store (`phoneNumbers`,
 *   `addresses[type eq "work"].formatted`, `manager`, …) and attributes of other schemas are
 *   ignored, so a deactivation that also touches them never fails.
 *
 * Refusals (each a 400 with its `scimType`): see `readScimPatchBody` for the envelope; a malformed
 * path → `invalidPath`, a malformed filter → `invalidFilter`; a path to `id` / `meta` or removing `userName`
 * or `active` → `mutability`; `remove` without a path → `noTarget`; a value of the wrong type or
 * out of bounds → `invalidValue`. A `remove` whose filter matches nothing is a no-op.
 *
 * @example
 * applyScimUserPatch(user, {
 *   schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
 *   Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
 * }).active; // false
 */
export function applyScimUserPatch(current: ScimUserAttributes, body: unknown): ScimUserAttributes {
  return readScimPatchBody(body).reduce(applyOperation, current);
}
