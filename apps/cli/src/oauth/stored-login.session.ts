import { CliError, ExitCode, NOT_LOGGED_IN } from '../cli.errors.js';
import type { CliContext } from '../cli.context.js';
import type { StoredLogin } from '../credentials/credentials.types.js';
import { withCredentialsLock } from '../credentials/credentials-lock.js';
import { failureOf, oauthErrorOf } from '../http/http-error.mapping.js';
import type { HttpResult } from '../http/http.client.js';
import { normalizeServerUrl } from '../server-url.js';
import { refreshTokens, type TokenSet } from './device-flow.client.js';

/** An access token this close to its expiry is refreshed first, so that it survives the request. */
export const REFRESH_MARGIN_MS = 60_000;

/**
 * The stored login of `--server` (normalized) or of the default server; exit 1 with
 * {@link NOT_LOGGED_IN} when there is none.
 *
 * @example
 * const login = await requireLogin(context, options.server);
 */
export async function requireLogin(context: CliContext, server: string | undefined): Promise<StoredLogin> {
  const key = server === undefined ? context.registry.defaultServer() : normalizeServerUrl(server);
  const login = key === undefined ? undefined : await context.registry.load(key);
  if (login === undefined) throw new CliError(NOT_LOGGED_IN, ExitCode.failure);
  return login;
}

/**
 * The stored login built from a token response (`expires_in` counted from `now`).
 *
 * @example
 * const login = loginFromTokens(server, 'tessera-cli', tokens, Date.now(), new Date().toISOString());
 */
export function loginFromTokens(
  server: string,
  clientId: string,
  tokens: TokenSet,
  now: number,
  loggedInAt: string,
): StoredLogin {
  return {
    server,
    clientId,
    accessToken: tokens.access_token,
    accessTokenExpiresAt: new Date(now + tokens.expires_in * 1000).toISOString(),
    refreshToken: tokens.refresh_token,
    scope: tokens.scope,
    loggedInAt,
  };
}

/**
 * `login` with an access token valid for at least {@link REFRESH_MARGIN_MS} (or refreshed anyway
 * with `force`). The refresh runs under the credentials lock and first re-reads the store: if
 * another process refreshed meanwhile, its tokens are used and the spent refresh token is never
 * presented again. `invalid_grant` (family revoked or expired) deletes the stored login.
 *
 * @example
 * const { accessToken } = await freshLogin(context, login);
 */
export async function freshLogin(context: CliContext, login: StoredLogin, force = false): Promise<StoredLogin> {
  if (!force && !expiresSoon(context, login)) return login;
  return withCredentialsLock(context.registry.lockPath, async () => {
    const current = await context.registry.load(login.server);
    if (current === undefined) throw new CliError(NOT_LOGGED_IN, ExitCode.failure);
    if (current.refreshToken !== login.refreshToken && !expiresSoon(context, current)) return current;
    const refreshed = await refreshTokens(context.http(current.server), current.clientId, current.refreshToken);
    if (!refreshed.ok) {
      if (oauthErrorOf(refreshed.result) === 'invalid_grant') {
        await context.registry.remove(current.server);
        throw new CliError(
          `The login for ${current.server} was revoked or has expired and has been removed. Run \`tessera login --server ${current.server}\`.`,
          ExitCode.failure,
          refreshed.result.requestId,
        );
      }
      throw failureOf(refreshed.result);
    }
    const next = loginFromTokens(current.server, current.clientId, refreshed.tokens, context.now(), current.loggedInAt);
    await context.registry.save(next, storeOf(context.registry.storeOf(current.server)), false);
    return next;
  });
}

/**
 * `GET path` with the login's bearer token; a 401 (the token was revoked early, e.g. after a
 * membership change) is retried once after a forced refresh.
 *
 * @example
 * const { result } = await authorizedGet(context, login, '/identity/v1/me');
 */
export async function authorizedGet(
  context: CliContext,
  login: StoredLogin,
  path: string,
): Promise<{ login: StoredLogin; result: HttpResult }> {
  let current = await freshLogin(context, login);
  let result = await context.http(current.server).get(path, current.accessToken);
  if (result.status === 401) {
    current = await freshLogin(context, current, true);
    result = await context.http(current.server).get(path, current.accessToken);
  }
  return { login: current, result };
}

function expiresSoon(context: CliContext, login: StoredLogin): boolean {
  const expiresAt = Date.parse(login.accessTokenExpiresAt);
  return Number.isNaN(expiresAt) || expiresAt - context.now() < REFRESH_MARGIN_MS;
}

function storeOf<T>(value: T | undefined): T {
  if (value === undefined) throw new CliError(NOT_LOGGED_IN, ExitCode.failure);
  return value;
}
