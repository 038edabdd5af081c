import type { CliContext } from '../cli.context.js';
import type { StoredLogin } from '../credentials/credentials.types.js';
import { failureOf } from '../http/http-error.mapping.js';
import { authorizedGet } from '../oauth/stored-login.session.js';

/** `Me` of route 1 (`GET /identity/v1/me`). */
export interface MeView {
  readonly userId: string;
  readonly displayName: string;
  readonly assuranceLevel: string;
}

/** `OrganizationSummary` of route 21 (`GET /identity/v1/organizations`). */
export interface OrganizationView {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly role: string;
}

/**
 * The approved capabilities of a login.
 *
 * @example
 * scopesOf(login); // ['identity.organizations', 'identity.profile']
 */
export function scopesOf(login: StoredLogin): string[] {
  return login.scope.split(' ').filter(Boolean);
}

/**
 * Route 1 with the login's device token; `undefined` when the login lacks `identity.profile`
 * (the server would answer 404).
 *
 * @example
 * const me = await fetchMe(context, login);
 */
export async function fetchMe(
  context: CliContext,
  login: StoredLogin,
): Promise<{ login: StoredLogin; me: MeView | undefined }> {
  if (!scopesOf(login).includes('identity.profile')) return { login, me: undefined };
  const { login: current, result } = await authorizedGet(context, login, '/identity/v1/me');
  if (result.status !== 200) throw failureOf(result);
  return { login: current, me: result.body as MeView };
}

/**
 * Route 21 with the login's device token (exactly the login's organization, role `device`);
 * `undefined` when the login lacks `identity.organizations`.
 *
 * @example
 * const organizations = await fetchOrganizations(context, login);
 */
export async function fetchOrganizations(
  context: CliContext,
  login: StoredLogin,
): Promise<{ login: StoredLogin; organizations: OrganizationView[] | undefined }> {
  if (!scopesOf(login).includes('identity.organizations')) return { login, organizations: undefined };
  const { login: current, result } = await authorizedGet(context, login, '/identity/v1/organizations');
  if (result.status !== 200) throw failureOf(result);
  return { login: current, organizations: result.body as OrganizationView[] };
}
