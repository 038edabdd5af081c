import type { MembershipState, OrganizationState, SessionFederation } from './identity-records.js';

/**
 * What a federated session's validity depends on beyond its user (identity-http §2.1), as stored
 * now; `null` where the row does not exist.
 */
export interface FederatedSessionStanding {
  /** The provider control of the session's tenant and provider key. */
  readonly provider: { readonly state: 'enabled' | 'disabled'; readonly sessionEpoch: number } | null;
  readonly organizationState: OrganizationState | null;
  /** The user's membership in the session's tenant. */
  readonly membershipState: MembershipState | null;
}

/** Reads of the federation provenance a session carries. */
export interface IdentityFederationReads {
  /**
   * The standing of `federation` for `userId` in one round trip.
   *
   * @example
   * const standing = await store.findFederatedSessionStanding(session.federation, session.userId);
   */
  findFederatedSessionStanding(federation: SessionFederation, userId: string): Promise<FederatedSessionStanding>;
}
