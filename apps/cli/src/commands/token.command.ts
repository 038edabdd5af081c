import type { CliContext } from '../cli.context.js';
import { freshLogin, requireLogin } from '../oauth/stored-login.session.js';

/**
 * `tessera token`: prints only a valid access token (refreshed first when it expires within a
 * minute), for `Authorization: Bearer $(tessera token)`.
 *
 * @example
 * await tokenCommand(context, { server: undefined });
 */
export async function tokenCommand(context: CliContext, options: { server?: string }): Promise<void> {
  const login = await freshLogin(context, await requireLogin(context, options.server));
  context.output.line(login.accessToken);
}
