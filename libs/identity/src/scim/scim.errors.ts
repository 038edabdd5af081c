/** RFC 7644 §3.12 `scimType` values this server answers with (identity-http §7). */
export type ScimErrorType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'sensitive';

/** HTTP statuses a SCIM error answers with. */
export type ScimErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 412 | 413 | 415 | 429 | 500 | 501 | 503;

/**
 * A refusal on `/scim/v2/**`, rendered as the RFC 7644 error body
 * `{"schemas":["urn:ietf:params:scim:api:messages:2.0:Error"],"status":"400","scimType":"invalidFilter","detail":"…"}`.
 * `detail` is a fixed text chosen by the code that throws (never exception text, never input echoed).
 *
 * @example
 * throw new ScimError(400, 'invalidFilter', 'The filter is not valid');
 */
export class ScimError extends Error {
  constructor(
    readonly status: ScimErrorStatus,
    readonly scimType: ScimErrorType | undefined,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'ScimError';
  }
}

/** 400 `invalidFilter` with a fixed detail. */
export function invalidFilter(detail = 'The filter is not valid'): ScimError {
  return new ScimError(400, 'invalidFilter', detail);
}

/** 400 `invalidSyntax` with a fixed detail. */
export function invalidSyntax(detail = 'The request body is not valid'): ScimError {
  return new ScimError(400, 'invalidSyntax', detail);
}

/** 400 `invalidValue` with a fixed detail. */
export function invalidValue(detail = 'An attribute value is not valid'): ScimError {
  return new ScimError(400, 'invalidValue', detail);
}

/** 400 `invalidPath` with a fixed detail. */
export function invalidPath(detail = 'The PATCH path is not valid'): ScimError {
  return new ScimError(400, 'invalidPath', detail);
}

/** 400 `noTarget` with a fixed detail. */
export function noTarget(detail = 'The PATCH path matched no value'): ScimError {
  return new ScimError(400, 'noTarget', detail);
}

/** 400 `mutability` with a fixed detail. */
export function mutability(detail = 'The attribute cannot be changed'): ScimError {
  return new ScimError(400, 'mutability', detail);
}
