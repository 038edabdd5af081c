import type { ScimEmail, ScimEnterpriseUser, ScimName, ScimUserAttributes } from '../../store/identity-scim.records.js';
import { invalidValue, mutability } from '../scim.errors.js';
import { canonicalName, SCIM_ENTERPRISE_SUBS, SCIM_NAME_SUBS, type ScimUserTarget } from './scim-user.schema.js';
import {
  checkScimEmails,
  isScimObject,
  readScimBoolean,
  readScimEmail,
  readScimEmails,
  readScimString,
  readScimUserName,
  scimSingle,
} from './scim-values.js';

/** How a value lands on a multi-valued attribute: `add` appends, `replace` replaces the whole list. */
export type ScimAssignMode = 'add' | 'replace';

/** A sub-attribute of one `emails` value. */
export type ScimEmailSub = 'value' | 'type' | 'primary';

/**
 * Every stored User attribute unset (`userName` empty until the request sets it), `active` true.
 *
 * @example
 * const draft = { ...EMPTY_SCIM_USER, userName: 'ada@example.com' };
 */
export const EMPTY_SCIM_USER: ScimUserAttributes = {
  userName: '',
  externalId: null,
  displayName: null,
  nickName: null,
  title: null,
  userType: null,
  preferredLanguage: null,
  locale: null,
  timezone: null,
  active: true,
  name: {
    formatted: null,
    familyName: null,
    givenName: null,
    middleName: null,
    honorificPrefix: null,
    honorificSuffix: null,
  },
  emails: [],
  enterprise: { employeeNumber: null, costCenter: null, organization: null, division: null, department: null },
};

/** Merges the known keys of an object value (any case) into a complex attribute; unknown keys are ignored. */
function mergeComplex<T extends object>(current: T, subs: readonly (keyof T & string)[], raw: unknown): T {
  const value = scimSingle(raw);
  if (value === null || value === undefined) return current;
  if (!isScimObject(value)) throw invalidValue('A complex attribute must be an object');
  const next: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [key, sub] of Object.entries(value)) {
    const name = canonicalName(subs, key);
    if (name !== undefined) next[name] = readScimString(sub);
  }
  return next as T;
}

/** With `primary` set on `chosen`, every other email loses it (RFC 7644 §3.5.2). */
function keepOnePrimary(emails: readonly ScimEmail[], chosen: ReadonlySet<ScimEmail>): readonly ScimEmail[] {
  if (![...chosen].some((email) => email.primary)) return emails;
  return emails.map((email) => (chosen.has(email) || !email.primary ? email : { ...email, primary: false }));
}

function sameEmail(a: ScimEmail, b: ScimEmail): boolean {
  return a.value.toLowerCase() === b.value.toLowerCase() && (a.type ?? '') === (b.type ?? '');
}

/**
 * Sets one sub-attribute on every email `match` selects. When none matches, a new email is built
 * from `seed` (the `eq` values of the PATCH filter, e.g. `{type: 'work'}`) plus the sub-attribute —
 * Entra sends `replace emails[type eq "work"].value` for a user that has no work email yet and
 * expects it to be added. A new email needs a `value`, else the path has no target.
 *
 * @example
 * setScimEmailSub([], () => true, 'value', 'ada@example.com', { type: 'work' });
 * // [{ value: 'ada@example.com', type: 'work', primary: false }]
 */
export function setScimEmailSub(
  emails: readonly ScimEmail[],
  match: (email: ScimEmail) => boolean,
  sub: ScimEmailSub,
  raw: unknown,
  seed: Readonly<Record<string, unknown>>,
): readonly ScimEmail[] {
  if (!emails.some(match)) {
    const created = readScimEmail({ ...seed, [sub]: raw });
    return checkScimEmails(keepOnePrimary([...emails, created], new Set([created])));
  }
  const changed = new Set<ScimEmail>();
  const next = emails.map((email) => {
    if (!match(email)) return email;
    const updated = readScimEmail({ value: email.value, type: email.type, primary: email.primary, [sub]: raw });
    changed.add(updated);
    return updated;
  });
  return checkScimEmails(keepOnePrimary(next, changed));
}

/**
 * Appends emails (union: a value already there with the same type is replaced, not duplicated).
 *
 * @example
 * addScimEmails([], [{ value: 'a@b.c', type: 'work', primary: true }]);
 */
export function addScimEmails(emails: readonly ScimEmail[], added: readonly ScimEmail[]): readonly ScimEmail[] {
  const kept = emails.filter((email) => !added.some((item) => sameEmail(item, email)));
  return checkScimEmails(keepOnePrimary([...kept, ...added], new Set(added)));
}

function assignString(current: ScimUserAttributes, attribute: string, raw: unknown): ScimUserAttributes {
  const value = attribute === 'userName' ? readScimUserName(raw) : readScimString(raw);
  return { ...current, [attribute]: value };
}

/**
 * Sets (`replace`) or adds (`add`: appends to `emails`, merges into complex attributes) a value at
 * a resolved User attribute. Ignored attributes leave the user unchanged; read-only ones throw
 * `mutability`; values of the wrong type throw `invalidValue`.
 *
 * @example
 * assignScimUserAttribute(user, { kind: 'active' }, 'False', 'replace').active; // false
 */
export function assignScimUserAttribute(
  current: ScimUserAttributes,
  target: ScimUserTarget,
  raw: unknown,
  mode: ScimAssignMode,
): ScimUserAttributes {
  switch (target.kind) {
    case 'string':
      return assignString(current, target.attribute, raw);
    case 'active':
      return { ...current, active: readScimBoolean(raw) };
    case 'name':
      return target.sub === null
        ? { ...current, name: mergeComplex<ScimName>(current.name, SCIM_NAME_SUBS, raw) }
        : { ...current, name: { ...current.name, [target.sub]: readScimString(raw) } };
    case 'enterprise':
      return target.sub === null
        ? { ...current, enterprise: mergeComplex<ScimEnterpriseUser>(current.enterprise, SCIM_ENTERPRISE_SUBS, raw) }
        : { ...current, enterprise: { ...current.enterprise, [target.sub]: readScimString(raw) } };
    case 'emails':
      if (target.sub !== null) {
        return { ...current, emails: setScimEmailSub(current.emails, () => true, target.sub, raw, {}) };
      }
      return {
        ...current,
        emails: mode === 'add' ? addScimEmails(current.emails, readScimEmails(raw)) : readScimEmails(raw),
      };
    case 'readOnly':
      throw mutability('id and meta are read-only');
    case 'ignored':
      return current;
  }
}

/**
 * Removes the value at a resolved User attribute. `userName` (required) and `active` (always
 * stored) are `mutability` errors; removing an email's `value` removes that email.
 *
 * @example
 * removeScimUserAttribute(user, { kind: 'enterprise', sub: 'department' }).enterprise.department; // null
 */
export function removeScimUserAttribute(current: ScimUserAttributes, target: ScimUserTarget): ScimUserAttributes {
  switch (target.kind) {
    case 'string':
      if (target.attribute === 'userName') throw mutability('userName is required');
      return { ...current, [target.attribute]: null };
    case 'active':
      throw mutability('active cannot be removed');
    case 'name':
      return {
        ...current,
        name: target.sub === null ? EMPTY_SCIM_USER.name : { ...current.name, [target.sub]: null },
      };
    case 'enterprise':
      return {
        ...current,
        enterprise: target.sub === null ? EMPTY_SCIM_USER.enterprise : { ...current.enterprise, [target.sub]: null },
      };
    case 'emails':
      return { ...current, emails: removeScimEmailSub(current.emails, () => true, target.sub) };
    case 'readOnly':
      throw mutability('id and meta are read-only');
    case 'ignored':
      return current;
  }
}

/**
 * Removes the emails `match` selects (`sub` null or `value`), or clears one sub-attribute of them.
 * Nothing selected is a no-op.
 *
 * @example
 * removeScimEmailSub(emails, (email) => email.type === 'work', null); // work emails gone
 */
export function removeScimEmailSub(
  emails: readonly ScimEmail[],
  match: (email: ScimEmail) => boolean,
  sub: ScimEmailSub | null,
): readonly ScimEmail[] {
  if (sub === null || sub === 'value') return emails.filter((email) => !match(email));
  return emails.map((email) => (match(email) ? { ...email, [sub]: sub === 'primary' ? false : null } : email));
}
