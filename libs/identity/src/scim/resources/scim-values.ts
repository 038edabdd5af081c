import type { ScimEmail } from '../../store/identity-scim.records.js';
import { invalidValue } from '../scim.errors.js';

/**
 * Longest stored string attribute (identity-model §9.5).
 *
 * @example
 * readScimString(text, SCIM_STRING_MAX);
 */
export const SCIM_STRING_MAX = 1024;
/**
 * Most `emails` values a User keeps (positions 0..19).
 *
 * @example
 * emails.length <= SCIM_EMAILS_MAX;
 */
export const SCIM_EMAILS_MAX = 20;

// C0 controls, DEL and C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/**
 * `true` for a plain JSON object (not an array, not `null`).
 *
 * @example
 * isScimObject({ value: 'a' }); // true
 * isScimObject([]); // false
 */
export function isScimObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value of a property named `key` in any case (`Value`, `VALUE`), or `undefined`.
 *
 * @example
 * scimProperty({ Value: 'x' }, 'value'); // 'x'
 */
export function scimProperty(object: Record<string, unknown>, key: string): unknown {
  if (Object.hasOwn(object, key)) return object[key];
  const lower = key.toLowerCase();
  const found = Object.keys(object).find((candidate) => candidate.toLowerCase() === lower);
  return found === undefined ? undefined : object[found];
}

/**
 * Entra legacy leniency: a one-item array where a single value is expected is that value.
 *
 * @example
 * scimSingle(['a']); // 'a'
 * scimSingle('a'); // 'a'
 */
export function scimSingle(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 ? value[0] : value;
}

/**
 * A single simple value: a one-item array is unwrapped, and so is an object carrying only `value`
 * — Entra tenants without `aadOptscim062020` send `"value": [{"value": "Babs"}]` for `nickName`.
 *
 * @example
 * scimScalar([{ value: 'Babs' }]); // 'Babs'
 */
export function scimScalar(raw: unknown): unknown {
  const value = scimSingle(raw);
  if (isScimObject(value) && Object.keys(value).length === 1) {
    const inner = scimProperty(value, 'value');
    if (inner !== undefined) return inner;
  }
  return value;
}

/**
 * Entra legacy leniency: a single value where an array is expected is a one-item array; `null` /
 * absent is empty.
 *
 * @example
 * scimList({ value: 'a@b.c' }); // [{ value: 'a@b.c' }]
 */
export function scimList(value: unknown): readonly unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * A stored optional string: `null`, absent and `""` clear it; a string of 1..1024 characters is kept;
 * anything else is `invalidValue`.
 *
 * @example
 * readScimString('Engineering'); // 'Engineering'
 * readScimString(''); // null
 */
export function readScimString(raw: unknown, max = SCIM_STRING_MAX): string | null {
  const value = scimScalar(raw);
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > max) throw invalidValue();
  return value;
}

/**
 * `userName`: required, 1..1024 characters, no control characters.
 *
 * @example
 * readScimUserName('ada@example.com'); // 'ada@example.com'
 */
export function readScimUserName(raw: unknown): string {
  const value = readScimString(raw);
  if (value === null || CONTROL.test(value)) throw invalidValue('userName is required and must be printable text');
  return value;
}

/**
 * A boolean: `true`/`false`, or the strings `"True"`/`"False"` in any case (older Entra tenants).
 *
 * @example
 * readScimBoolean('False'); // false
 */
export function readScimBoolean(raw: unknown): boolean {
  const value = scimScalar(raw);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  throw invalidValue('A boolean attribute has a value that is not a boolean');
}

/**
 * One `emails` value: `value` 3..320 characters containing `@`, `type` ≤ 64, `primary` boolean
 * (default `false`). Other sub-attributes (`display`) are ignored.
 *
 * @example
 * readScimEmail({ value: 'ada@example.com', type: 'work', primary: true });
 */
export function readScimEmail(raw: unknown): ScimEmail {
  if (!isScimObject(raw)) throw invalidValue('An email must be an object');
  const value = readScimString(scimProperty(raw, 'value'), 320);
  if (value === null || value.length < 3 || !value.includes('@')) throw invalidValue('An email value is not valid');
  const type = readScimString(scimProperty(raw, 'type'), 64);
  const primaryRaw = scimProperty(raw, 'primary');
  const primary = primaryRaw === undefined || primaryRaw === null ? false : readScimBoolean(primaryRaw);
  return { value, type, primary };
}

/**
 * Checks the bounds of a whole `emails` list: ≤ 20 values and at most one `primary`.
 *
 * @example
 * checkScimEmails([{ value: 'a@b.c', type: null, primary: true }]); // returns the list
 */
export function checkScimEmails(emails: readonly ScimEmail[]): readonly ScimEmail[] {
  if (emails.length > SCIM_EMAILS_MAX) throw invalidValue('Too many email values');
  if (emails.filter((email) => email.primary).length > 1) throw invalidValue('At most one email may be primary');
  return emails;
}

/**
 * The `emails` attribute of a request: a list (or a single object) of emails, bounds checked.
 *
 * @example
 * readScimEmails({ value: 'ada@example.com', type: 'work' }); // one email
 */
export function readScimEmails(raw: unknown): readonly ScimEmail[] {
  return checkScimEmails(scimList(raw).map(readScimEmail));
}
