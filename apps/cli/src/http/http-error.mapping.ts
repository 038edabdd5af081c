import { CliError, ExitCode } from '../cli.errors.js';
import type { HttpResult } from './http.client.js';

/** RFC 6749 / RFC 8628 `error` codes the CLI explains in words; others are named as they come. */
const OAUTH_MESSAGES: Readonly<Record<string, string>> = {
  access_denied: 'The login was denied in the browser.',
  expired_token: 'The code expired before it was approved. Run `tessera login` again.',
  invalid_grant: 'The server no longer accepts this login (revoked or expired).',
  invalid_scope: 'The server does not allow the requested scope.',
  invalid_client: 'The server does not accept this client id.',
  invalid_request: 'The server rejected the request as malformed.',
  unsupported_grant_type: 'The server does not support this grant type.',
};

/**
 * The RFC 6749 `error` of a response body, if it has one.
 *
 * @example
 * if (oauthErrorOf(result) === 'slow_down') interval += 5;
 */
export function oauthErrorOf(result: HttpResult): string | undefined {
  const error = (result.body as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error : undefined;
}

/**
 * The identity envelope's `error.code` of a response body, if it has one.
 *
 * @example
 * identityErrorOf(result); // 'not_found'
 */
export function identityErrorOf(result: HttpResult): string | undefined {
  const code = (result.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The one-line failure of an HTTP error response: 429 (with `Retry-After`), 503 and other 5xx are
 * "unavailable" (exit 3); an RFC 6749 error or an identity envelope is a failure (exit 1) in words.
 * The server's `X-Request-ID` rides along for `--verbose`.
 *
 * @example
 * if (result.status !== 200) throw failureOf(result);
 */
export function failureOf(result: HttpResult): CliError {
  const unavailable = (message: string) => new CliError(message, ExitCode.unavailable, result.requestId);
  if (result.status === 429) {
    const after = retryAfterSeconds(result.headers.get('retry-after'));
    return unavailable(
      `The server is rate limiting requests; retry ${after === undefined ? 'later' : `in ${after} s`}.`,
    );
  }
  if (result.status === 503) return unavailable('The server is temporarily unavailable; retry later.');
  if (result.status >= 500) return unavailable(`The server could not complete the request (HTTP ${result.status}).`);
  const failure = (message: string) => new CliError(message, ExitCode.failure, result.requestId);
  const oauth = oauthErrorOf(result);
  if (oauth !== undefined) return failure(OAUTH_MESSAGES[oauth] ?? `The server refused the request (${oauth}).`);
  const code = identityErrorOf(result);
  if (result.status === 401) return failure('The server no longer accepts this login.');
  if (code !== undefined) return failure(`The server refused the request (${code}).`);
  return failure(`Unexpected answer from the server (HTTP ${result.status}).`);
}

/**
 * `Retry-After` as whole seconds ≥ 1: delta-seconds or an HTTP date; `undefined` when absent or bad.
 *
 * @example
 * retryAfterSeconds(result.headers.get('retry-after')); // 42
 */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Math.max(1, Number(header.trim()));
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(1, Math.ceil((at - now) / 1000));
}
