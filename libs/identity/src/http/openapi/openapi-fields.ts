import type { BodySchema, FieldRule } from '../request-fields.js';
import type { JsonSchema } from '../routes/route-doc.js';

/** Canonical lowercase UUIDv7 (identity-http §1). */
export const UUID_V7_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';
/** Text fields never hold C0 controls or U+007F (identity-http §1). */
const NO_CONTROLS = '^[^\\u0000-\\u001f\\u007f]*$';
const SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{1,62}$';

/**
 * A canonical UUIDv7 string.
 *
 * @example
 * { properties: { id: uuidV7() } }
 */
export function uuidV7(description?: string): JsonSchema {
  return { type: 'string', pattern: UUID_V7_PATTERN, ...(description === undefined ? {} : { description }) };
}

/** JSON Schema of one field rule of `request-fields.ts` (lengths in code points, as the decoder counts). */
function fieldSchema(rule: FieldRule): JsonSchema {
  switch (rule.kind) {
    case 'text':
      return { type: 'string', minLength: rule.min, maxLength: rule.max, pattern: NO_CONTROLS };
    case 'uuidv7':
      return uuidV7();
    case 'slug':
      return { type: 'string', pattern: SLUG_PATTERN };
    case 'email':
      return {
        type: 'string',
        minLength: 3,
        maxLength: 320,
        pattern: '@',
        not: { pattern: '[\\u0000-\\u001f\\u007f]' },
      };
  }
}

/**
 * The request body schema of a `fields()` decoder: a closed object whose properties follow the
 * same rules the decoder applies (unknown keys rejected, optional fields omitted, never `null`).
 *
 * @example
 * fieldRulesSchema({ name: { kind: 'text', min: 1, max: 200 } });
 */
export function fieldRulesSchema(rules: BodySchema): JsonSchema {
  const required = Object.entries(rules)
    .filter(([, rule]) => rule.optional !== true)
    .map(([name]) => name);
  return {
    type: 'object',
    additionalProperties: false,
    ...(required.length === 0 ? {} : { required }),
    properties: Object.fromEntries(Object.entries(rules).map(([name, rule]) => [name, fieldSchema(rule)])),
  };
}

/** A closed object: every listed property, `required` ones always present, nothing else. */
export function object(
  required: readonly string[],
  properties: Record<string, JsonSchema>,
  description?: string,
): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: [...required],
    properties,
    ...(description === undefined ? {} : { description }),
  };
}
