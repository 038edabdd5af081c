import { isAcceptableRequestId } from '../tokens/request-id.format.js';

/**
 * Every code of the identity error envelope (`identity-http.md` §8.1), emitted or reserved.
 *
 * @example
 * const code: IdentityErrorCode = 'session_expired';
 */
export type IdentityErrorCode =
  | 'authentication_required'
  | 'invalid_credentials'
  | 'session_expired'
  | 'session_revoked'
  | 'organization_required'
  | 'wrong_organization'
  | 'insufficient_role'
  | 'insufficient_capability'
  | 'csrf_required'
  | 'csrf_invalid'
  | 'step_up_required'
  | 'registration_not_allowed'
  | 'challenge_invalid'
  | 'request_invalid'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

/**
 * The fixed HTTP status, message and retryability of one identity error code.
 *
 * @example
 * const { status, message } = IDENTITY_ERROR_CATALOGUE.not_found; // 404, 'The requested identity resource was not found'
 */
export interface IdentityErrorDefinition {
  readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 429 | 500 | 503;
  readonly message: string;
  readonly retryable: boolean;
  /** `false` for codes the contract reserves but never emits. */
  readonly emitted: boolean;
}

const entry = (
  status: IdentityErrorDefinition['status'],
  message: string,
  retryable: boolean,
  emitted: boolean,
): IdentityErrorDefinition => Object.freeze({ status, message, retryable, emitted });

/**
 * The one catalogue of identity error codes (`identity-http.md` §8.1); frozen.
 *
 * @example
 * res.statusCode = IDENTITY_ERROR_CATALOGUE[error.code].status;
 */
export const IDENTITY_ERROR_CATALOGUE: Readonly<Record<IdentityErrorCode, IdentityErrorDefinition>> = Object.freeze({
  authentication_required: entry(401, 'Authentication is required', false, true),
  invalid_credentials: entry(401, 'Authentication failed', false, true),
  session_expired: entry(401, 'The session has expired', false, true),
  session_revoked: entry(401, 'The session is no longer valid', false, true),
  organization_required: entry(403, 'Organization scope is required', false, false),
  wrong_organization: entry(403, 'Access to the organization was denied', false, false),
  insufficient_role: entry(403, 'The required role is missing', false, false),
  insufficient_capability: entry(403, 'The required capability is missing', false, false),
  csrf_required: entry(403, 'CSRF validation is required', false, false),
  csrf_invalid: entry(403, 'CSRF validation failed', false, true),
  step_up_required: entry(403, 'Recent passkey verification is required', false, true),
  registration_not_allowed: entry(403, 'Registration is not available', false, true),
  challenge_invalid: entry(400, 'The challenge is invalid or has expired', false, true),
  request_invalid: entry(400, 'The request is invalid', false, true),
  not_found: entry(404, 'The requested identity resource was not found', false, true),
  method_not_allowed: entry(405, 'The method is not allowed for this resource', false, true),
  conflict: entry(409, 'The resource changed; retry the request', true, true),
  rate_limited: entry(429, 'Too many attempts; retry later', true, true),
  service_unavailable: entry(503, 'The identity service is temporarily unavailable', true, true),
  internal_error: entry(500, 'The identity operation failed', false, true),
});

/**
 * All 20 identity error codes, in catalogue order.
 *
 * @example
 * if (IDENTITY_ERROR_CODES.includes(value as IdentityErrorCode)) { ... }
 */
export const IDENTITY_ERROR_CODES: readonly IdentityErrorCode[] = Object.freeze(
  Object.keys(IDENTITY_ERROR_CATALOGUE) as IdentityErrorCode[],
);

/**
 * The 15 codes the identity platform actually emits (the other five are reserved).
 *
 * @example
 * expect(EMITTED_IDENTITY_ERROR_CODES).toContain(body.error.code);
 */
export const EMITTED_IDENTITY_ERROR_CODES: readonly IdentityErrorCode[] = Object.freeze(
  IDENTITY_ERROR_CODES.filter((code) => IDENTITY_ERROR_CATALOGUE[code].emitted),
);

/**
 * `true` when `value` is one of the 20 identity error codes.
 *
 * @example
 * isIdentityErrorCode('not_found'); // true
 */
export function isIdentityErrorCode(value: unknown): value is IdentityErrorCode {
  return typeof value === 'string' && Object.hasOwn(IDENTITY_ERROR_CATALOGUE, value);
}

/**
 * The JSON body of the identity envelope.
 *
 * @example
 * const body: IdentityErrorBody = identityErrorBody('not_found', 'req_abc');
 */
export interface IdentityErrorBody {
  error: { code: IdentityErrorCode; message: string; requestId?: string; retryable: boolean };
}

/**
 * Builds the identity envelope body for `code`. `requestId` is included only when it is a valid
 * request id (`^[A-Za-z0-9._:-]{1,255}$`); anything else is omitted rather than echoed.
 *
 * @example
 * identityErrorBody('conflict', 'req_x');
 * // { error: { code: 'conflict', message: 'The resource changed; retry the request', requestId: 'req_x', retryable: true } }
 */
export function identityErrorBody(code: IdentityErrorCode, requestId?: string): IdentityErrorBody {
  const { message, retryable } = IDENTITY_ERROR_CATALOGUE[code];
  if (requestId !== undefined && isAcceptableRequestId(requestId)) {
    return { error: { code, message, requestId, retryable } };
  }
  return { error: { code, message, retryable } };
}

/**
 * A request-time identity failure answered with the envelope of `identity-http.md` §8.1. Its
 * message is the catalogue's fixed text; `cause` is kept for logs and never serialised.
 *
 * @example
 * throw new IdentityError('step_up_required');
 * throw new IdentityError('service_unavailable', { cause: storeError });
 * throw new IdentityError('rate_limited', { retryAfterSeconds: 42 });
 */
export class IdentityError extends Error {
  override name = 'IdentityError';
  /** HTTP status fixed by the code. */
  readonly status: IdentityErrorDefinition['status'];
  /** Fixed by the code. */
  readonly retryable: boolean;
  /** Seconds for `Retry-After` (`rate_limited` only; integer ≥ 1). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    /** Stable machine-readable code. */
    readonly code: IdentityErrorCode,
    options: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(IDENTITY_ERROR_CATALOGUE[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    const { status, retryable } = IDENTITY_ERROR_CATALOGUE[code];
    this.status = status;
    this.retryable = retryable;
    const retryAfter = options.retryAfterSeconds;
    if (retryAfter !== undefined) {
      if (code !== 'rate_limited') throw new TypeError('retryAfterSeconds is only valid for rate_limited');
      if (!Number.isSafeInteger(retryAfter) || retryAfter < 1) {
        throw new TypeError('retryAfterSeconds must be an integer >= 1');
      }
    }
    this.retryAfterSeconds = retryAfter;
  }

  /** The envelope body for this error (never includes the cause). */
  toBody(requestId?: string): IdentityErrorBody {
    return identityErrorBody(this.code, requestId);
  }

  /** Serialises to the code only, so a stray `JSON.stringify` cannot leak the cause. */
  toJSON(): { name: string; code: IdentityErrorCode } {
    return { name: this.name, code: this.code };
  }
}
