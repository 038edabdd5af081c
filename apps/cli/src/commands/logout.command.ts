import { CliError, ExitCode, NOT_LOGGED_IN } from '../cli.errors.js';
import type { CliContext } from '../cli.context.js';
import { withCredentialsLock } from '../credentials/credentials-lock.js';
import { revokeRefreshToken } from '../oauth/device-flow.client.js';
import { requireLogin } from '../oauth/stored-login.session.js';

/**
 * `tessera logout`: revokes the token family on the server (RFC 7009 with the refresh token), then
 * deletes the stored login. When the server cannot be reached the login is kept, so that a later
 * `tessera logout` can still revoke it.
 *
 * @example
 * await logoutCommand(context, { server: 'https://id.example.com' });
 */
export async function logoutCommand(context: CliContext, options: { server?: string }): Promise<void> {
  const { server } = await requireLogin(context, options.server);
  await withCredentialsLock(context.registry.lockPath, async () => {
    // Under the lock: a refresh that finished meanwhile holds the family's newest refresh token.
    const login = await context.registry.load(server);
    if (login === undefined) throw new CliError(NOT_LOGGED_IN, ExitCode.failure);
    try {
      await revokeRefreshToken(context.http(server), login.clientId, login.refreshToken);
    } catch (error) {
      if (error instanceof CliError)
        throw new CliError(
          `${error.message} The login was kept; run \`tessera logout\` again.`,
          error.exitCode,
          error.requestId,
        );
      throw error;
    }
    await context.registry.remove(server);
  });
  context.output.line(`Logged out of ${server}.`);
}
