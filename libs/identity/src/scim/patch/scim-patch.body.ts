import { invalidPath, invalidSyntax, invalidValue } from '../scim.errors.js';
import { isScimObject, scimProperty } from '../resources/scim-values.js';

/**
 * Schema URN of a PATCH request body (RFC 7644 §3.5.2).
 *
 * @example
 * const body = { schemas: [SCIM_PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: false }] };
 */
export const SCIM_PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
/**
 * Most operations one PATCH request may carry.
 *
 * @example
 * operations.length <= SCIM_PATCH_OPERATIONS_MAX;
 */
export const SCIM_PATCH_OPERATIONS_MAX = 1000;

/** One operation of a PATCH request, `op` lower-cased. */
export interface ScimPatchOperation {
  readonly op: 'add' | 'remove' | 'replace';
  /** The `path`, or `null` when absent (pathless `add` / `replace` carry an object value). */
  readonly path: string | null;
  /** The `value`, `undefined` when absent. */
  readonly value: unknown;
}

const OPS = new Set(['add', 'remove', 'replace']);

/**
 * Reads the envelope of a PATCH body: `schemas` must list the PatchOp URN (any case), `Operations`
 * (any case) must be a non-empty array of at most 1,000 objects. Each `op` is `add`, `remove` or
 * `replace` in any case (Entra sends `Replace`, `Add`, `Remove`).
 *
 * Errors: a body that is not an object, a missing PatchOp schema, a bad `Operations` array and an
 * unknown `op` are `invalidSyntax` — RFC 7644 §3.12 defines it as a request body whose structure
 * "did not conform to the request schema", and `op` is part of the PatchOp message structure, not
 * an attribute value (`invalidValue` is about attribute values). A `path` that is not a string is
 * `invalidPath`; `add` / `replace` without `value` is `invalidValue` ("a required value was missing").
 *
 * @example
 * readScimPatchBody({
 *   schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
 *   Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
 * }); // [{ op: 'replace', path: 'active', value: 'False' }]
 */
export function readScimPatchBody(body: unknown): ScimPatchOperation[] {
  if (!isScimObject(body)) throw invalidSyntax('The request body must be a JSON object');
  const schemas = scimProperty(body, 'schemas');
  const listed = Array.isArray(schemas) ? schemas : [schemas];
  const patchSchema = SCIM_PATCH_SCHEMA.toLowerCase();
  if (!listed.some((schema) => typeof schema === 'string' && schema.toLowerCase() === patchSchema)) {
    throw invalidSyntax('The PATCH body must list the PatchOp schema');
  }
  const operations = scimProperty(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > SCIM_PATCH_OPERATIONS_MAX) {
    throw invalidSyntax('Operations must be an array of 1 to 1000 operations');
  }
  return operations.map(readOperation);
}

function readOperation(raw: unknown): ScimPatchOperation {
  if (!isScimObject(raw)) throw invalidSyntax('Each operation must be an object');
  const op = scimProperty(raw, 'op');
  if (typeof op !== 'string' || !OPS.has(op.toLowerCase())) throw invalidSyntax('The operation is not supported');
  const rawPath = scimProperty(raw, 'path');
  if (rawPath !== undefined && rawPath !== null && typeof rawPath !== 'string') throw invalidPath();
  const path = typeof rawPath === 'string' && rawPath.trim() !== '' ? rawPath : null;
  const value = scimProperty(raw, 'value');
  const lower = op.toLowerCase() as ScimPatchOperation['op'];
  if (lower !== 'remove' && value === undefined) throw invalidValue('add and replace need a value');
  return { op: lower, path, value };
}
