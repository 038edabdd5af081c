import { CliError, ExitCode } from '../cli.errors.js';
import type { CliContext } from '../cli.context.js';
import { requireLogin } from '../oauth/stored-login.session.js';
import { fetchOrganizations } from './identity.queries.js';

/**
 * `tessera orgs [--json]`: the organizations the login can see (route 21) — a device login sees
 * exactly the organization it was approved for, with role `device`.
 *
 * @example
 * await orgsCommand(context, { json: false });
 */
export async function orgsCommand(context: CliContext, options: { server?: string; json?: boolean }): Promise<void> {
  const login = await requireLogin(context, options.server);
  const { organizations } = await fetchOrganizations(context, login);
  if (organizations === undefined)
    throw new CliError(
      `This login was not granted identity.organizations; run \`tessera login --server ${login.server} --scope "identity.organizations"\`.`,
      ExitCode.failure,
    );
  const { output } = context;
  if (options.json) {
    output.line(JSON.stringify(organizations, null, 2));
    return;
  }
  for (const organization of organizations)
    output.line(`${organization.slug}\t${organization.name}\t${organization.role}\t${organization.id}`);
}
