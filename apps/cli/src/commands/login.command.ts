import { CliError, ExitCode } from '../cli.errors.js';
import type { CliContext } from '../cli.context.js';
import { withCredentialsLock } from '../credentials/credentials-lock.js';
import {
  cancelDeviceAuthorization,
  pollForTokens,
  revokeRefreshToken,
  startDeviceAuthorization,
  type DeviceAuthorization,
  type TokenSet,
} from '../oauth/device-flow.client.js';
import type { HttpClient } from '../http/http.client.js';
import { loginFromTokens } from '../oauth/stored-login.session.js';
import { normalizeServerUrl } from '../server-url.js';

/** The defaults of `tessera login`. */
export const DEFAULT_CLIENT_ID = 'tessera-cli';
export const DEFAULT_SCOPE = 'identity.profile identity.organizations';

/** Options of `tessera login`. */
export interface LoginOptions {
  readonly server: string;
  readonly scope: string;
  readonly clientId: string;
}

/**
 * `tessera login`: checks where the tokens can be kept (keychain or file), starts an RFC 8628
 * device authorization, prints the verification URI and the user code on their own lines with the
 * anti-phishing warning, polls until the user decides, and stores the tokens (never printed) as
 * the new default login. A previous login to the same server is revoked once replaced. Ctrl-C
 * while waiting cancels the device code on the server (exit 130).
 *
 * @example
 * await loginCommand(context, { server: 'https://id.example.com', scope: DEFAULT_SCOPE, clientId: DEFAULT_CLIENT_ID });
 */
export async function loginCommand(context: CliContext, options: LoginOptions): Promise<void> {
  const server = normalizeServerUrl(options.server);
  const scope = options.scope.trim().split(/\s+/).filter(Boolean).join(' ');
  if (scope === '') throw new CliError('--scope needs at least one capability.', ExitCode.usage);
  const store = await context.registry.chooseStore();
  const http = context.http(server);
  const started = await startDeviceAuthorization(http, options.clientId, scope);
  const { output } = context;
  output.line('Open this page in a browser and enter the code below:');
  output.line(started.verification_uri);
  output.line(started.user_code);
  output.line(`Only enter this code at ${started.verification_uri}. Never share it.`);
  const tokens = await waitForApproval(context, http, options.clientId, started);
  const now = context.now();
  const login = loginFromTokens(server, options.clientId, tokens, now, new Date(now).toISOString());
  const previous = await withCredentialsLock(context.registry.lockPath, async () => {
    const replaced = context.registry.storeOf(server) === undefined ? undefined : await context.registry.load(server);
    await context.registry.save(login, store, true);
    return replaced;
  });
  output.line(`Logged in to ${server} with ${tokens.scope.split(' ').join(', ')}.`);
  if (previous !== undefined && previous.refreshToken !== login.refreshToken) {
    // The replaced family would otherwise stay valid until it expires, with nothing left to revoke it.
    await revokeRefreshToken(http, previous.clientId, previous.refreshToken).catch(() =>
      output.warn('warning: the previous login to this server could not be revoked.'),
    );
  }
}

/** Polls until a decision; on SIGINT the code is cancelled (best effort, bounded) so nobody can approve it later. */
async function waitForApproval(
  context: CliContext,
  http: HttpClient,
  clientId: string,
  started: DeviceAuthorization,
): Promise<TokenSet> {
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
  process.once('SIGINT', onInterrupt);
  try {
    return await context.output.waitFor(
      'Waiting for approval…',
      pollForTokens(http, clientId, started, { signal: interrupt.signal }),
    );
  } catch (error) {
    if (!interrupt.signal.aborted) throw error;
    await cancelDeviceAuthorization(http, started.device_code).catch(() => undefined);
    throw new CliError('Login cancelled; the code can no longer be approved.', ExitCode.interrupted);
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
}
