import { IdentityConfigError } from '../errors/identity-boot.errors.js';
import type { ScimGroupRoleRule } from '../store/identity-scim.records.js';

/**
 * The tenant a host authenticator maps a SCIM request to (identity-http §7): the organization, a
 * provider name (1..64 of `[a-z0-9_-]`), and the group-to-role rules of that tenant.
 */
export interface ScimTenantGrant {
  readonly organizationId: string;
  readonly providerName: string;
  /** @default [] (every provisioned member is a `viewer`) */
  readonly groupRoles?: readonly ScimGroupRoleRule[];
}

/**
 * A host-supplied SCIM authenticator, for hosts that keep their own SCIM credentials beside the
 * organization-managed connections. It sees only the request headers (before any body is read)
 * and answers the tenant, or `null` to refuse (401). A throw answers 503.
 *
 * @example
 * const authenticator: ScimAuthenticator = {
 *   authenticate: async (headers) => (headers('x-scim-key')[0] === process.env.SCIM_KEY ? { organizationId, providerName: 'okta' } : null),
 * };
 */
export interface ScimAuthenticator {
  authenticate(headers: (name: string) => readonly string[]): Promise<ScimTenantGrant | null>;
}

/**
 * Decides whether an authenticated tenant may provision now (e.g. a billing or feature switch);
 * `false` answers 403, a throw 503. The organization must also be active whatever this answers.
 *
 * @example
 * const tenantAuthorizer: ScimTenantAuthorizer = { allows: async ({ organizationId }) => plans.hasScim(organizationId) };
 */
export interface ScimTenantAuthorizer {
  allows(tenant: { readonly organizationId: string; readonly providerName: string }): Promise<boolean>;
}

/**
 * SCIM 2.0 provisioning (`IdentityModule.forRoot({ scim })`, identity-http §7): `/scim/v2/Users`,
 * `/scim/v2/Groups` and discovery, authenticated by the bearer tokens of organization-managed SCIM
 * connections (`/identity/v1/organizations/{orgId}/scim/connections`) and, optionally, a host
 * authenticator.
 *
 * @example
 * IdentityModule.forRoot({ config, store, scim: { maxPageSize: 500 } })
 */
export interface IdentityScimOptions {
  /** `false` removes `/scim/v2` and the connection routes (404). @default true */
  readonly enabled?: boolean;
  /** Tried when the bearer is not a valid connection token. @default none */
  readonly authenticator?: ScimAuthenticator;
  /** @default every active organization may provision */
  readonly tenantAuthorizer?: ScimTenantAuthorizer;
  /** Largest `count` of a list page, 1..5000 (a larger `count` is capped). @default 1000 */
  readonly maxPageSize?: number;
}

/** The validated SCIM options the kernel carries. */
export interface ScimSettings {
  readonly enabled: boolean;
  readonly authenticator: ScimAuthenticator | null;
  readonly tenantAuthorizer: ScimTenantAuthorizer | null;
  readonly maxPageSize: number;
}

/**
 * Validates the `scim` module option (fails closed at startup on an out-of-range page size).
 *
 * @example
 * const scim = resolveScimSettings(options.scim);
 */
export function resolveScimSettings(options: IdentityScimOptions | undefined): ScimSettings {
  const maxPageSize = options?.maxPageSize ?? 1000;
  if (!Number.isInteger(maxPageSize) || maxPageSize < 1 || maxPageSize > 5000) {
    throw new IdentityConfigError('scim', 'scim.maxPageSize must be an integer between 1 and 5000');
  }
  return {
    enabled: options?.enabled ?? true,
    authenticator: options?.authenticator ?? null,
    tenantAuthorizer: options?.tenantAuthorizer ?? null,
    maxPageSize,
  };
}
