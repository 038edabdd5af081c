import type { CliContext } from '../cli.context.js';
import { requireLogin } from '../oauth/stored-login.session.js';
import { fetchMe, fetchOrganizations, scopesOf } from './identity.queries.js';

/**
 * `tessera whoami [--json]`: the server, user (route 1), organization (route 21) and approved
 * scopes of the stored login; the user or organization is `null` when the login was not granted
 * `identity.profile` or `identity.organizations`.
 *
 * @example
 * await whoamiCommand(context, { json: true });
 */
export async function whoamiCommand(context: CliContext, options: { server?: string; json?: boolean }): Promise<void> {
  const stored = await requireLogin(context, options.server);
  const { login, me } = await fetchMe(context, stored);
  const { organizations } = await fetchOrganizations(context, login);
  const organization = organizations?.[0];
  const view = {
    server: login.server,
    user: me === undefined ? null : { id: me.userId, displayName: me.displayName },
    organization:
      organization === undefined ? null : { id: organization.id, name: organization.name, slug: organization.slug },
    scopes: scopesOf(login),
  };
  const { output } = context;
  if (options.json) {
    output.line(JSON.stringify(view, null, 2));
    return;
  }
  output.line(`Server:        ${view.server}`);
  output.line(
    `User:          ${view.user ? `${view.user.displayName} (${view.user.id})` : '(identity.profile not granted)'}`,
  );
  output.line(
    `Organization:  ${view.organization ? `${view.organization.name} (${view.organization.slug}, ${view.organization.id})` : '(identity.organizations not granted)'}`,
  );
  output.line(`Scopes:        ${view.scopes.join(' ')}`);
}
