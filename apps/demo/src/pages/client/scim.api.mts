import { IdentityApiError } from './api.mjs';
import type { AuditEventView } from './organizations.api.mjs';

/** The roles a group can grant through provisioning (`owner` never is). */
export const SCIM_ROLES = ['admin', 'publisher', 'viewer'] as const;

/** One group-to-role rule: a group matched by display name (case-insensitive) or external ID (exact). */
export interface ScimGroupRoleRule {
  readonly match: { readonly displayName: string } | { readonly externalId: string };
  readonly role: (typeof SCIM_ROLES)[number];
}

/** `ScimConnection` (issue 15): never its token or a digest. */
export interface ScimConnectionView {
  readonly id: string;
  readonly organizationId: string;
  readonly providerName: string;
  readonly groupRoles: readonly ScimGroupRoleRule[];
  readonly state: 'active' | 'revoked';
  /** `<publicBaseUrl>/scim/v2`, to paste into the identity provider. */
  readonly baseUrl: string;
  readonly tokenIssuedAt: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly revokedAt: string | null;
}

/** `IssuedScimConnection`: the create and rotate answers, the only ones with the bearer token. */
export interface IssuedScimConnection {
  readonly connection: ScimConnectionView;
  readonly token: string;
}

/** Path segments of the connections collection under the organization. */
export const CONNECTIONS = ['scim', 'connections'] as const;

/** How long a rotated-away token keeps working (the server's fixed overlap). */
export const ROTATION_OVERLAP_MINUTES = 10;

/** The provider names the page offers, with what people call them. */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  okta: 'Okta',
  entra: 'Microsoft Entra ID',
  generic: 'another SCIM 2.0 client',
};

/**
 * The name people know a connection's provider by (“Okta”), its `providerName` when unknown.
 *
 * @example
 * providerLabel('entra'); // 'Microsoft Entra ID'
 */
export function providerLabel(providerName: string): string {
  return PROVIDER_NAMES[providerName] ?? providerName;
}

/**
 * The SCIM base URL to paste: the server's (`baseUrl` of any connection) when one exists, else
 * this origin's `/scim/v2` (the demo serves the pages and SCIM from its `publicBaseUrl`).
 *
 * @example
 * byId<HTMLInputElement>('scim-base-url').value = scimBaseUrl(connections);
 */
export function scimBaseUrl(connections: readonly ScimConnectionView[]): string {
  return connections[0]?.baseUrl ?? `${location.origin}/scim/v2`;
}

/**
 * A rule as people read it: `group “Engineering” → publisher`, `group with external ID “42” → admin`.
 *
 * @example
 * describeRule({ match: { displayName: 'Engineering' }, role: 'publisher' }); // 'group “Engineering” → publisher'
 */
export function describeRule(rule: ScimGroupRoleRule): string {
  return 'displayName' in rule.match
    ? `group “${rule.match.displayName}” → ${rule.role}`
    : `group with external ID “${rule.match.externalId}” → ${rule.role}`;
}

/**
 * `true` for the audit events provisioning wrote: SCIM actions, and changes a SCIM client made (`scim:<provider>`).
 *
 * @example
 * page.events.filter(isProvisioningEvent);
 */
export function isProvisioningEvent(event: AuditEventView): boolean {
  return event.action.startsWith('scim') || (event.reasonCode?.startsWith('scim:') ?? false);
}

/** What was being done when a connection call failed, for {@link explainScimError}. */
export type ScimAction = 'list' | 'create' | 'rotate' | 'revoke';

/**
 * A connection call's failure with the envelope's fixed message, its request ID, and what to do:
 * 400 (the rules), 403 (the passkey check), 404 (gone or no longer allowed), 409 (a connection of
 * that provider is active). Other errors pass unchanged.
 *
 * @example
 * throw explainScimError(error, 'create');
 */
export function explainScimError(error: unknown, action: ScimAction): unknown {
  if (!(error instanceof IdentityApiError)) return error;
  let hint: string | undefined;
  if (error.status === 400)
    hint = 'Check the rules: each needs a group display name or external ID (up to 1,024 characters) and a role.';
  else if (error.status === 403 && error.code === 'step_up_required')
    hint =
      'Provisioning changes need a passkey check from the last five minutes; confirm with your passkey and try again.';
  else if (error.status === 404)
    hint =
      action === 'list'
        ? 'Only owners and admins of this organization can manage its provisioning.'
        : 'This connection was revoked or no longer exists, or you can no longer manage this organization’s provisioning; reload the page.';
  else if (error.status === 409 && action === 'create')
    hint =
      'This organization already has an active connection for that provider. Revoke it first (provisioned people stay), or pick another provider.';
  else if (error.status === 409) hint = 'The connection changed meanwhile; reload the page and try again.';
  if (hint === undefined) return error;
  return new IdentityApiError(error.status, error.code, `${error.message}. ${hint}`, error.requestId);
}
