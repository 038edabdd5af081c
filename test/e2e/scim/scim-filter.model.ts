/**
 * The in-test model of the SCIM filter property test: random users and an evaluator implementing
 * the filter semantics of DESIGN-15 independently of the SQL translator.
 */
import fc from 'fast-check';
import type { ScimFilterValue, ScimUserFilter, ScimUserFilterAttribute } from '@tessera/identity';

/** One value of `emails`. */
export interface ModelEmail {
  readonly value: string;
  readonly type: string | null;
  readonly primary: boolean;
}

/** A user as the model sees it: canonical attribute path → value, plus its emails. */
export interface ModelUser {
  readonly id: string;
  readonly single: Readonly<Record<string, string | boolean | Date | null>>;
  readonly emails: readonly ModelEmail[];
}

/** Single-valued text attributes and their `scim_users` columns. */
export const TEXT_COLUMNS: ReadonlyArray<readonly [ScimUserFilterAttribute, string]> = [
  ['externalId', 'external_id'],
  ['userName', 'user_name'],
  ['displayName', 'display_name'],
  ['nickName', 'nick_name'],
  ['title', 'title'],
  ['userType', 'user_type'],
  ['preferredLanguage', 'preferred_language'],
  ['locale', 'locale'],
  ['timezone', 'timezone'],
  ['name.formatted', 'name_formatted'],
  ['name.familyName', 'name_family_name'],
  ['name.givenName', 'name_given_name'],
  ['name.middleName', 'name_middle_name'],
  ['name.honorificPrefix', 'name_honorific_prefix'],
  ['name.honorificSuffix', 'name_honorific_suffix'],
  ['enterprise.employeeNumber', 'enterprise_employee_number'],
  ['enterprise.costCenter', 'enterprise_cost_center'],
  ['enterprise.organization', 'enterprise_organization'],
  ['enterprise.division', 'enterprise_division'],
  ['enterprise.department', 'enterprise_department'],
];

/** Attributes compared as written (RFC 7643: `id`, `externalId`). */
export const CASE_EXACT = new Set<string>(['id', 'externalId']);
/** Date attributes. */
export const DATE_ATTRIBUTES = ['meta.created', 'meta.lastModified'] as const;

/**
 * Characters of generated strings: ASCII letters of both cases, the LIKE and quoting
 * metacharacters, and non-ASCII characters that have no upper case (PostgreSQL's `lower()` under a
 * C locale folds ASCII only, so case-folding non-ASCII would depend on the server's locale).
 */
const CHARACTERS = [
  'a',
  'A',
  'b',
  'B',
  'x',
  'X',
  '0',
  '1',
  '%',
  '_',
  '\\',
  '"',
  "'",
  ' ',
  '@',
  '.',
  '-',
  'é',
  'ß',
  '漢',
  '😀',
  '→',
];

/** A random non-empty string over {@link CHARACTERS}. */
export const textArbitrary = (minLength = 1, maxLength = 6): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...CHARACTERS), minLength, maxLength });

const dateArbitrary = fc.date({
  min: new Date('2015-01-01T00:00:00Z'),
  max: new Date('2026-01-01T00:00:00Z'),
  noInvalidDate: true,
});

const emailArbitrary: fc.Arbitrary<ModelEmail> = fc.record({
  value: textArbitrary(3, 8),
  type: fc.option(fc.constantFrom('work', 'Work', 'home', 'HOME', 'other', 'w%_\\'), { nil: null }),
  primary: fc.constant(false),
});

/** A random user: every text attribute null or 1..6 characters, 0..3 emails (at most one primary). */
export const userArbitrary: fc.Arbitrary<ModelUser> = fc
  .record({
    id: fc.uuid(),
    userName: textArbitrary(1, 6),
    texts: fc.array(fc.option(textArbitrary(), { nil: null, freq: 2 }), {
      minLength: TEXT_COLUMNS.length,
      maxLength: TEXT_COLUMNS.length,
    }),
    active: fc.boolean(),
    created: dateArbitrary,
    modifiedAfter: fc.integer({ min: 0, max: 10 ** 9 }),
    emails: fc.array(emailArbitrary, { maxLength: 3 }),
    primary: fc.integer({ min: -1, max: 2 }),
  })
  .map(({ id, userName, texts, active, created, modifiedAfter, emails, primary }) => {
    const single: Record<string, string | boolean | Date | null> = { id, active };
    TEXT_COLUMNS.forEach(([attribute], index) => (single[attribute] = texts[index] ?? null));
    single['userName'] = userName;
    single['meta.created'] = created;
    single['meta.lastModified'] = new Date(created.getTime() + modifiedAfter);
    return { id, single, emails: emails.map((email, index) => ({ ...email, primary: index === primary })) };
  });

/** Compares strings by code points (PostgreSQL `collate "C"` over UTF-8). */
function codePointOrder(a: string, b: string): number {
  const left = Array.from(a, (c) => c.codePointAt(0)!);
  const right = Array.from(b, (c) => c.codePointAt(0)!);
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    if (left[index] !== right[index]) return left[index]! - right[index]!;
  }
  return left.length - right.length;
}

const isPresent = (value: unknown): boolean => value !== null && value !== '';

/** One comparison of a single value (`null` = absent) per DESIGN-15. */
function compareOne(attribute: string, actual: unknown, op: string, value: ScimFilterValue): boolean {
  if (value === null) return op === 'eq' ? !isPresent(actual) : isPresent(actual);
  if (actual === null) return op === 'ne';
  if (typeof actual === 'boolean') return op === 'eq' ? actual === value : actual !== value;
  if (actual instanceof Date) {
    const order = actual.getTime() - (value as Date).getTime();
    return compareOrder(op, order);
  }
  const exact = CASE_EXACT.has(attribute);
  const a = exact ? (actual as string) : (actual as string).toLowerCase();
  const b = exact ? (value as string) : (value as string).toLowerCase();
  if (op === 'co') return a.includes(b);
  if (op === 'sw') return a.startsWith(b);
  if (op === 'ew') return a.endsWith(b);
  return compareOrder(op, codePointOrder(a, b));
}

function compareOrder(op: string, order: number): boolean {
  switch (op) {
    case 'eq':
      return order === 0;
    case 'ne':
      return order !== 0;
    case 'gt':
      return order > 0;
    case 'ge':
      return order >= 0;
    case 'lt':
      return order < 0;
    default:
      return order <= 0;
  }
}

const emailPart = (email: ModelEmail, attribute: string): string | boolean | null =>
  attribute === 'emails.value' ? email.value : attribute === 'emails.type' ? email.type : email.primary;

/**
 * Evaluates a filter over a user (and, inside a value path, one of its emails): two-valued logic,
 * absent values satisfy only `ne`, multi-valued attributes hold when any value does.
 */
export function evaluate(filter: ScimUserFilter, user: ModelUser, email?: ModelEmail): boolean {
  switch (filter.kind) {
    case 'constant':
      return filter.value;
    case 'and':
      return filter.filters.every((f) => evaluate(f, user, email));
    case 'or':
      return filter.filters.some((f) => evaluate(f, user, email));
    case 'not':
      return !evaluate(filter.filter, user, email);
    case 'valuePath':
      return user.emails.some((one) => evaluate(filter.filter, user, one));
    case 'present':
    case 'compare': {
      const op = filter.kind === 'present' ? 'pr' : filter.op;
      const value = filter.kind === 'present' ? null : filter.value;
      const test = (actual: unknown) =>
        op === 'pr' ? isPresent(actual) : compareOne(filter.attribute, actual, op, value);
      if (!filter.attribute.startsWith('emails.')) return test(user.single[filter.attribute] ?? null);
      if (email) return test(emailPart(email, filter.attribute));
      const values = user.emails.map((one) => emailPart(one, filter.attribute));
      if (op === 'eq' && value === null) return !values.some(isPresent);
      if (op === 'ne' && value !== null) return values.length === 0 || values.some(test);
      return values.some(test);
    }
  }
}
