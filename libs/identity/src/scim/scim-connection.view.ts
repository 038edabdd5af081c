import type { ScimConnectionRecord, ScimGroupRoleRule } from '../store/identity-scim.records.js';

/** The public view of a SCIM connection: never its token or a digest. */
export interface ScimConnectionView {
  readonly id: string;
  readonly organizationId: string;
  readonly providerName: string;
  readonly groupRoles: readonly ScimGroupRoleRule[];
  readonly state: 'active' | 'revoked';
  /** The SCIM base URL to paste into the identity provider (`<publicBaseUrl>/scim/v2`). */
  readonly baseUrl: string;
  readonly tokenIssuedAt: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly revokedAt: string | null;
}

/**
 * The view of a connection (dates ISO 8601).
 *
 * @example
 * respondIdentityJson(exchange, 200, scimConnectionView(kernel.config.publicBaseUrl, record));
 */
export function scimConnectionView(publicBaseUrl: string, record: ScimConnectionRecord): ScimConnectionView {
  return {
    id: record.id,
    organizationId: record.organizationId,
    providerName: record.providerName,
    groupRoles: record.groupRoles,
    state: record.state,
    baseUrl: scimBaseUrl(publicBaseUrl),
    tokenIssuedAt: record.tokenIssuedAt.toISOString(),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    revokedAt: record.revokedAt === null ? null : record.revokedAt.toISOString(),
  };
}

/**
 * The absolute SCIM base URL of this deployment.
 *
 * @example
 * scimBaseUrl('https://id.example.com'); // 'https://id.example.com/scim/v2'
 */
export function scimBaseUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/scim/v2`;
}
