/**
 * Declarative field rules for identity request bodies (identity-http §1, §4.2): unknown keys,
 * wrong types, `null` for optional fields and out-of-bound text are all `request_invalid`.
 */

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;
// C0 controls and U+007F are never allowed in text fields.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** One field's rule. */
export type FieldRule =
  | { kind: 'text'; min: number; max: number; optional?: boolean }
  | { kind: 'uuidv7'; optional?: boolean }
  | { kind: 'slug'; optional?: boolean }
  | { kind: 'email'; optional?: boolean };

/** A body schema: field name → rule. */
export type BodySchema = Readonly<Record<string, FieldRule>>;

/** The decoded body: every present field as a string. */
export type DecodedBody<S extends BodySchema> = {
  [K in keyof S]: S[K] extends { optional: true } ? string | undefined : string;
};

/** Length in Unicode code points. */
export function codePointLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * `true` for a text value of `min..max` code points without C0 controls or U+007F (identity-http §1).
 *
 * @example
 * if (!textOk(form.client_name, 1, 200)) throw new OAuthError('invalid_request');
 */
export function textOk(value: string, min: number, max: number): boolean {
  if (CONTROL.test(value)) return false;
  const length = codePointLength(value);
  return length >= min && length <= max;
}

function fieldOk(rule: FieldRule, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  switch (rule.kind) {
    case 'text':
      return textOk(value, rule.min, rule.max);
    case 'uuidv7':
      return UUID_V7.test(value);
    case 'slug':
      return SLUG.test(value);
    case 'email':
      return textOk(value, 3, 320) && value.includes('@');
  }
}

/**
 * Checks a parsed JSON value against `schema`; `undefined` when it is not an object, has an unknown
 * key, misses a required field or breaks a rule.
 *
 * @example
 * decodeBody({ token: 'x'.repeat(43), displayName: 'Ada' }, { token: { kind: 'text', min: 20, max: 512 }, displayName: { kind: 'text', min: 1, max: 200 } })
 */
export function decodeBody<S extends BodySchema>(value: unknown, schema: S): DecodedBody<S> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!Object.hasOwn(schema, key)) return undefined;
  const out: Record<string, string | undefined> = {};
  for (const [name, rule] of Object.entries(schema)) {
    if (!Object.hasOwn(record, name)) {
      if (rule.optional === true) continue;
      return undefined;
    }
    if (!fieldOk(rule, record[name])) return undefined;
    out[name] = record[name] as string;
  }
  return out as DecodedBody<S>;
}

/** `true` for a canonical lowercase UUIDv7 (identity-http §1). */
export function isUuidV7(value: string): boolean {
  return UUID_V7.test(value);
}
