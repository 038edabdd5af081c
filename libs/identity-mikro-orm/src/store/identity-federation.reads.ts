import type {
  FederatedSessionStanding,
  IdentityFederationReads,
  MembershipState,
  OrganizationState,
  SessionFederation,
} from '@tessera/identity';
import { isUuid, table, type StoreGateway } from './identity-store.gateway.js';

const NOTHING: FederatedSessionStanding = { provider: null, organizationState: null, membershipState: null };

/**
 * The federation reads the session resolver needs (identity-http §2.1): the tenant's provider
 * control, the tenant and the user's membership in it, in one statement of outer joins.
 *
 * @example
 * const standing = await new IdentityFederationReadQueries(gateway).findFederatedSessionStanding(federation, userId);
 */
export class IdentityFederationReadQueries implements IdentityFederationReads {
  constructor(private readonly gateway: StoreGateway) {}

  findFederatedSessionStanding(federation: SessionFederation, userId: string): Promise<FederatedSessionStanding> {
    const { organizationId, providerKey } = federation;
    return this.gateway.read(async (sql) => {
      if (!isUuid(organizationId) || !isUuid(userId)) return NOTHING;
      const [row] = await sql(
        `select p.state as provider_state, p.session_epoch as provider_session_epoch,
                o.state as organization_state, m.state as membership_state
           from (select 1) as anchor
           left join ${table('federation_provider_controls')} p on p.organization_id = ? and p.storage_key = ?
           left join ${table('organizations')} o on o.id = ?
           left join ${table('memberships')} m on m.organization_id = ? and m.user_id = ?`,
        [organizationId, providerKey, organizationId, organizationId, userId],
      );
      if (row === undefined) return NOTHING;
      const state = row['provider_state'];
      return {
        provider:
          state === 'enabled' || state === 'disabled'
            ? { state, sessionEpoch: Number(row['provider_session_epoch']) }
            : null,
        organizationState: (row['organization_state'] ?? null) as OrganizationState | null,
        membershipState: (row['membership_state'] ?? null) as MembershipState | null,
      };
    });
  }
}
