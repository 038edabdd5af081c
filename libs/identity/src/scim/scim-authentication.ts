import type { Exchange } from '@tessera/web';
import type { IdentityKernel } from '../identity-kernel.js';
import type { ScimGroupRoleRule, ScimTenant } from '../store/identity-scim.records.js';
import { SCIM_PROVIDER_NAME } from './scim-connection.request.js';
import { parseScimToken, scimTokenMatches } from './scim-connection.token.js';
import type { ScimTenantGrant } from './scim.options.js';
import { ScimError } from './scim.errors.js';

/** How long a rotated connection token keeps authenticating (issue 15: 10 more minutes). */
export const SCIM_ROTATION_OVERLAP_MS = 10 * 60 * 1000;

/** The tenant of an authenticated SCIM request and its group-to-role rules. */
export interface ScimRequestTenant {
  readonly tenant: ScimTenant;
  readonly groupRoles: readonly ScimGroupRoleRule[];
}

const UNAUTHENTICATED = new ScimError(401, undefined, 'Authentication failed');
const FORBIDDEN = new ScimError(403, undefined, 'Provisioning is not allowed for this tenant');
const UNAVAILABLE = new ScimError(503, undefined, 'The provisioning service is temporarily unavailable');
const BEARER = /^Bearer +([^ ]+) *$/i;

/**
 * Authenticates a SCIM request from its headers only, before any body is read (identity-http §7):
 * an organization-managed connection token (`Authorization: Bearer <tokenId>.<secret>`; a rotated
 * token for 10 more minutes; the connection and its organization active), else the host's
 * `ScimAuthenticator` when configured, else 401. Then the `ScimTenantAuthorizer` (403 when it
 * refuses). A store or hook failure is 503; nothing fails open.
 *
 * @example
 * const { tenant, groupRoles } = await authenticateScimRequest(kernel, exchange, at);
 */
export async function authenticateScimRequest(
  kernel: IdentityKernel,
  exchange: Exchange,
  at: Date,
): Promise<ScimRequestTenant> {
  const granted = (await connectionTenant(kernel, exchange, at)) ?? (await hostTenant(kernel, exchange));
  if (granted === null) throw UNAUTHENTICATED;
  const authorizer = kernel.scim.tenantAuthorizer;
  if (authorizer !== null) {
    let allowed: boolean;
    try {
      allowed = await authorizer.allows({
        organizationId: granted.tenant.organizationId,
        providerName: granted.tenant.providerName,
      });
    } catch {
      throw UNAVAILABLE;
    }
    if (allowed !== true) throw FORBIDDEN;
  }
  return granted;
}

function tenantOf(organizationId: string, providerName: string): ScimTenant {
  return { organizationId, providerName, provider: `${providerName}:${organizationId}` };
}

async function connectionTenant(
  kernel: IdentityKernel,
  exchange: Exchange,
  at: Date,
): Promise<ScimRequestTenant | null> {
  const headers = exchange.headerValues('authorization');
  if (headers.length > 1) throw UNAUTHENTICATED;
  const match = headers.length === 1 ? BEARER.exec(headers[0]!.trim()) : null;
  const presented = match === null ? undefined : parseScimToken(match[1]!);
  if (presented === undefined) return null;
  let grant;
  try {
    grant = await kernel.store.findScimConnectionGrant(presented.selector);
  } catch {
    throw UNAVAILABLE;
  }
  if (grant === null || !scimTokenMatches(kernel.keys.servicePepper, presented, grant.token.secretDigest)) return null;
  const { token, connection, organization } = grant;
  const live =
    token.state === 'active' ||
    (token.state === 'rotated' &&
      token.rotatedAt !== null &&
      at.getTime() < token.rotatedAt.getTime() + SCIM_ROTATION_OVERLAP_MS);
  if (!live || connection.state !== 'active') return null;
  if (organization.state !== 'active') throw FORBIDDEN;
  return { tenant: tenantOf(organization.id, connection.providerName), groupRoles: connection.groupRoles };
}

async function hostTenant(kernel: IdentityKernel, exchange: Exchange): Promise<ScimRequestTenant | null> {
  const authenticator = kernel.scim.authenticator;
  if (authenticator === null) return null;
  let grant: ScimTenantGrant | null;
  try {
    grant = await authenticator.authenticate((name) => exchange.headerValues(name));
  } catch {
    throw UNAVAILABLE;
  }
  if (grant === null) return null;
  if (typeof grant.providerName !== 'string' || !SCIM_PROVIDER_NAME.test(grant.providerName)) throw UNAVAILABLE;
  let organization;
  try {
    organization = await kernel.store.findOrganization(grant.organizationId);
  } catch {
    throw UNAVAILABLE;
  }
  if (organization === null || organization.state !== 'active') throw FORBIDDEN;
  return {
    tenant: tenantOf(organization.id, grant.providerName),
    groupRoles: (grant.groupRoles ?? []).filter((rule) => (rule.role as string) !== 'owner'),
  };
}
