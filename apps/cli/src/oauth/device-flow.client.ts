import { setTimeout as delay } from 'node:timers/promises';
import { CliError, ExitCode } from '../cli.errors.js';
import { failureOf, oauthErrorOf } from '../http/http-error.mapping.js';
import type { HttpClient, HttpResult } from '../http/http.client.js';

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.5: each `slow_down` adds 5 seconds to the polling interval, for the rest of the flow. */
const SLOW_DOWN_STEP_SECONDS = 5;

/** The RFC 8628 §3.2 device authorization response. */
export interface DeviceAuthorization {
  readonly device_code: string;
  readonly user_code: string;
  readonly verification_uri: string;
  readonly expires_in: number;
  readonly interval: number;
}

/** The RFC 6749 §5.1 token response of the device-code and refresh-token grants. */
export interface TokenSet {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly expires_in: number;
  readonly scope: string;
}

/**
 * Starts a device authorization (`POST /oauth/device_authorization`).
 *
 * @example
 * const started = await startDeviceAuthorization(http, 'tessera-cli', 'identity.profile');
 */
export async function startDeviceAuthorization(
  http: HttpClient,
  clientId: string,
  scope: string,
): Promise<DeviceAuthorization> {
  const result = await http.postForm('/oauth/device_authorization', {
    client_id: clientId,
    client_name: 'Tessera CLI',
    scope,
  });
  const body = result.body as Partial<DeviceAuthorization> | undefined;
  if (result.status !== 200) throw failureOf(result);
  if (
    typeof body?.device_code !== 'string' ||
    typeof body.user_code !== 'string' ||
    typeof body.verification_uri !== 'string' ||
    typeof body.expires_in !== 'number' ||
    typeof body.interval !== 'number'
  )
    throw malformed(result);
  return body as DeviceAuthorization;
}

/**
 * Polls the token endpoint until the user approves or denies, the code expires, or the server
 * fails: waits `interval` seconds before each poll, and after each `slow_down` waits 5 s longer
 * from then on. `access_denied` and `expired_token` end in a one-line {@link CliError} (exit 1).
 * Aborting `signal` (Ctrl-C) ends the wait and rejects with the signal's reason.
 *
 * @example
 * const tokens = await pollForTokens(http, 'tessera-cli', started, { sleep });
 */
export async function pollForTokens(
  http: HttpClient,
  clientId: string,
  started: DeviceAuthorization,
  options: { sleep?: (ms: number) => Promise<void>; now?: () => number; signal?: AbortSignal } = {},
): Promise<TokenSet> {
  const sleep = options.sleep ?? ((ms: number) => delay(ms, undefined, { signal: options.signal }));
  const now = options.now ?? Date.now;
  const expiresAt = now() + started.expires_in * 1000;
  let interval = Math.max(1, started.interval);
  for (;;) {
    await sleep(interval * 1000);
    options.signal?.throwIfAborted();
    if (now() >= expiresAt)
      throw new CliError('The code expired before it was approved. Run `tessera login` again.', ExitCode.failure);
    const result = await http.postForm('/oauth/token', {
      grant_type: DEVICE_CODE_GRANT,
      device_code: started.device_code,
      client_id: clientId,
    });
    if (result.status === 200) return tokenSetOf(result);
    const error = oauthErrorOf(result);
    if (error === 'authorization_pending') continue;
    if (error === 'slow_down') {
      interval += SLOW_DOWN_STEP_SECONDS;
      continue;
    }
    throw failureOf(result);
  }
}

/**
 * Cancels a pending device authorization as the holder of its device code (route 38), so that the
 * code shown on the terminal can no longer be approved by anyone.
 *
 * @example
 * await cancelDeviceAuthorization(http, started.device_code);
 */
export async function cancelDeviceAuthorization(http: HttpClient, deviceCode: string): Promise<void> {
  const result = await http.postJson('/identity/v1/device/cancel', { deviceCode });
  if (result.status !== 200) throw failureOf(result);
}

/**
 * Exchanges a refresh token for the next pair (`grant_type=refresh_token`); the old refresh token
 * is spent. Errors (including `invalid_grant`: the family was revoked) come back as the result.
 *
 * @example
 * const result = await refreshTokens(http, login.clientId, login.refreshToken);
 */
export async function refreshTokens(
  http: HttpClient,
  clientId: string,
  refreshToken: string,
): Promise<{ ok: true; tokens: TokenSet } | { ok: false; result: HttpResult }> {
  const result = await http.postForm('/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
  return result.status === 200 ? { ok: true, tokens: tokenSetOf(result) } : { ok: false, result };
}

/**
 * Revokes the token family of `refreshToken` (RFC 7009 `POST /oauth/revoke`). The server answers
 * 200 for unknown or already revoked tokens too.
 *
 * @example
 * await revokeRefreshToken(http, login.clientId, login.refreshToken);
 */
export async function revokeRefreshToken(http: HttpClient, clientId: string, refreshToken: string): Promise<void> {
  const result = await http.postForm('/oauth/revoke', {
    token: refreshToken,
    token_type_hint: 'refresh_token',
    client_id: clientId,
  });
  if (result.status !== 200) throw failureOf(result);
}

function tokenSetOf(result: HttpResult): TokenSet {
  const body = result.body as Partial<TokenSet> & { token_type?: unknown };
  if (
    typeof body?.access_token !== 'string' ||
    typeof body.refresh_token !== 'string' ||
    typeof body.expires_in !== 'number' ||
    typeof body.scope !== 'string' ||
    typeof body.token_type !== 'string' ||
    body.token_type.toLowerCase() !== 'bearer'
  )
    throw malformed(result);
  return {
    access_token: body.access_token,
    refresh_token: body.refresh_token,
    expires_in: body.expires_in,
    scope: body.scope,
  };
}

function malformed(result: HttpResult): CliError {
  return new CliError('The server answered with an unexpected body.', ExitCode.failure, result.requestId);
}
