/**
 * Every `error` code of the OAuth endpoints (`identity-http.md` §5, RFC 6749 §5.2, RFC 8628 §3.5).
 *
 * @example
 * const code: OAuthErrorCode = 'slow_down';
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'invalid_grant'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  | 'rate_limited'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * The fixed HTTP status and `error_description` of one OAuth error code.
 *
 * @example
 * const { status, description } = OAUTH_ERROR_CATALOGUE.invalid_grant; // 400, 'The grant or token is invalid, expired or revoked.'
 */
export interface OAuthErrorDefinition {
  readonly status: 400 | 429 | 500 | 503;
  readonly description: string;
}

const entry = (status: OAuthErrorDefinition['status'], description: string): OAuthErrorDefinition =>
  Object.freeze({ status, description });

/**
 * The one catalogue of OAuth error codes (`identity-http.md` §5 error table); frozen.
 *
 * @example
 * res.statusCode = OAUTH_ERROR_CATALOGUE[error.code].status;
 */
export const OAUTH_ERROR_CATALOGUE: Readonly<Record<OAuthErrorCode, OAuthErrorDefinition>> = Object.freeze({
  invalid_request: entry(400, 'The request is missing a required parameter or is malformed.'),
  invalid_scope: entry(400, 'The requested scope is invalid or not allowed.'),
  unsupported_grant_type: entry(400, 'The grant type is not supported.'),
  invalid_grant: entry(400, 'The grant or token is invalid, expired or revoked.'),
  authorization_pending: entry(400, 'The authorization request is still pending.'),
  slow_down: entry(400, 'Polling too frequently; increase the interval.'),
  access_denied: entry(400, 'The authorization request was denied.'),
  expired_token: entry(400, 'The device code has expired.'),
  rate_limited: entry(429, 'Too many requests; retry later.'),
  temporarily_unavailable: entry(503, 'The service is temporarily unavailable.'),
  server_error: entry(500, 'The request could not be completed.'),
});

/**
 * All 11 OAuth error codes, in catalogue order.
 *
 * @example
 * expect(OAUTH_ERROR_CODES).toContain(body.error);
 */
export const OAUTH_ERROR_CODES: readonly OAuthErrorCode[] = Object.freeze(
  Object.keys(OAUTH_ERROR_CATALOGUE) as OAuthErrorCode[],
);

/**
 * `true` when `value` is one of the OAuth error codes.
 *
 * @example
 * isOAuthErrorCode('slow_down'); // true
 */
export function isOAuthErrorCode(value: unknown): value is OAuthErrorCode {
  return typeof value === 'string' && Object.hasOwn(OAUTH_ERROR_CATALOGUE, value);
}

/**
 * The RFC 6749 §5.2 error body: exactly `error` and `error_description`, no other members (the
 * request id travels only in the `X-Request-ID` header).
 *
 * @example
 * const body: OAuthErrorBody = oauthErrorBody('invalid_grant');
 */
export interface OAuthErrorBody {
  readonly error: OAuthErrorCode;
  readonly error_description: string;
}

/**
 * Builds the error body of `code` with its fixed description.
 *
 * @example
 * oauthErrorBody('expired_token'); // { error: 'expired_token', error_description: 'The device code has expired.' }
 */
export function oauthErrorBody(code: OAuthErrorCode): OAuthErrorBody {
  return { error: code, error_description: OAUTH_ERROR_CATALOGUE[code].description };
}

/**
 * A request-time failure of an OAuth endpoint, answered with the RFC 6749 body of
 * `identity-http.md` §5. Its message is the fixed description; `cause` is kept for logs and never
 * serialised.
 *
 * @example
 * throw new OAuthError('invalid_grant');
 * throw new OAuthError('temporarily_unavailable', { cause: storeError });
 * throw new OAuthError('rate_limited', { retryAfterSeconds: 12 });
 */
export class OAuthError extends Error {
  override name = 'OAuthError';
  /** HTTP status fixed by the code. */
  readonly status: OAuthErrorDefinition['status'];
  /** Seconds for `Retry-After` (`rate_limited` only; integer ≥ 1). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    /** Stable machine-readable code, the body's `error`. */
    readonly code: OAuthErrorCode,
    options: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(OAUTH_ERROR_CATALOGUE[code].description, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = OAUTH_ERROR_CATALOGUE[code].status;
    const retryAfter = options.retryAfterSeconds;
    if (retryAfter !== undefined) {
      if (code !== 'rate_limited') throw new TypeError('retryAfterSeconds is only valid for rate_limited');
      if (!Number.isSafeInteger(retryAfter) || retryAfter < 1) {
        throw new TypeError('retryAfterSeconds must be an integer >= 1');
      }
    }
    this.retryAfterSeconds = retryAfter;
  }

  /** The RFC 6749 body for this error (never includes the cause). */
  toBody(): OAuthErrorBody {
    return oauthErrorBody(this.code);
  }

  /** Serialises to the code only, so a stray `JSON.stringify` cannot leak the cause. */
  toJSON(): { name: string; code: OAuthErrorCode } {
    return { name: this.name, code: this.code };
  }
}
