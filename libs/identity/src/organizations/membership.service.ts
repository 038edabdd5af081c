import type { IdentityCall } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { storeRead } from '../http/route-kit.js';
import type { IdentitySessions } from '../sessions/session.service.js';
import type { MembershipRecord, OrganizationRole } from '../store/identity-records.js';
import type { MembershipChange } from '../store/identity-organization.port.js';
import { ROLE_RANK } from './capabilities.js';
import { organizationFailure, requireOrganizationScope, type OrganizationScope } from './organization-scope.js';

/** Who holds a membership, as routes 26–28 show it. */
export interface MemberPerson {
  readonly id: string;
  readonly displayName: string;
  readonly primaryEmail?: string;
}

/** Reason of the epoch revocation that follows every membership change (identity-model §5.1). */
export const PRIVILEGE_CHANGE_REASON = 'organization_privilege_changed';

/**
 * Memberships of an organization (routes 26–28, identity-http §4.1, identity-model §6.1): list the
 * current ones (`membership.read`), change a role (`membership.update`; making or unmaking an owner
 * only by an owner, with step-up; a no-op answers the current membership), remove one
 * (`membership.remove` + step-up; an owner only by an owner). Role and owner-rule failures are the
 * tenancy 404; the last active owner is kept (409 `conflict`). Every change revokes all of the
 * target user's sessions (epoch), the actor's own included when self-targeted.
 *
 * @example
 * const membership = await memberships.changeRole(call, organizationId, membershipId, 'admin');
 */
export class IdentityMemberships {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
  ) {}

  /** Route 26: the current (active and suspended) memberships, sorted by id. */
  async list(context: IdentityContext, organizationId: string): Promise<MembershipRecord[]> {
    const { organization } = requireOrganizationScope(context, organizationId, 'membership.read');
    const memberships = await storeRead(() => this.kernel.store.listMembershipsForOrganization(organization.id));
    return memberships.filter((membership) => membership.state !== 'removed');
  }

  /**
   * The people behind memberships, for routes 26–28 (`user: {id, displayName, primaryEmail?}`):
   * one read for all of them; a caller who may read the memberships may read who holds them.
   */
  async people(memberships: readonly MembershipRecord[]): Promise<Map<string, MemberPerson>> {
    if (memberships.length === 0) return new Map();
    const users = await storeRead(() =>
      this.kernel.store.listUsersByIds(memberships.map((membership) => membership.userId)),
    );
    return new Map(
      users.map((user) => [
        user.id,
        {
          id: user.id,
          displayName: user.displayName,
          ...(user.primaryEmail === null ? {} : { primaryEmail: user.primaryEmail }),
        },
      ]),
    );
  }

  /** Route 27: `role` must be one of the four roles (400) before any tenancy check. */
  async changeRole(
    call: IdentityCall,
    organizationId: string,
    membershipId: string,
    role: string,
  ): Promise<MembershipRecord> {
    if (!Object.hasOwn(ROLE_RANK, role)) throw new IdentityError('request_invalid');
    const wanted = role as OrganizationRole;
    const scope = requireOrganizationScope(call.context, organizationId, 'membership.update');
    const membership = await this.target(scope, membershipId);
    if (membership.role === wanted) return membership;
    if (membership.role === 'owner' || wanted === 'owner') {
      if (scope.role !== 'owner') throw new IdentityError('not_found');
      this.sessions.requireStep(call.context);
    }
    return this.mutate(call, membership, { kind: 'role', role: wanted });
  }

  /** Route 28: removal (+ step-up). */
  async remove(call: IdentityCall, organizationId: string, membershipId: string): Promise<MembershipRecord> {
    const scope = requireOrganizationScope(call.context, organizationId, 'membership.remove');
    const membership = await this.target(scope, membershipId);
    if (membership.role === 'owner' && scope.role !== 'owner') throw new IdentityError('not_found');
    this.sessions.requireStep(call.context);
    return this.mutate(call, membership, { kind: 'remove' });
  }

  /** The active membership the path names in the scoped organization, else 404. */
  private async target(scope: OrganizationScope, membershipId: string): Promise<MembershipRecord> {
    const membership = await storeRead(() => this.kernel.store.findMembership(membershipId));
    if (membership === null || membership.organizationId !== scope.organization.id || membership.state !== 'active')
      throw new IdentityError('not_found');
    return membership;
  }

  private async mutate(
    call: IdentityCall,
    membership: MembershipRecord,
    change: MembershipChange,
  ): Promise<MembershipRecord> {
    const { at, exchange } = call;
    const actor = { type: 'user', userId: call.context.principal.id } as const;
    const organizationId = membership.organizationId;
    const result = await this.kernel.store.mutateMembership({
      organizationId,
      membershipId: membership.id,
      expectedVersion: membership.version,
      actorUserId: call.context.principal.id,
      change,
      revokeSessions: { reason: PRIVILEGE_CHANGE_REASON },
      at,
      audits: [
        this.kernel.audit.event(exchange, at, {
          actor,
          action: 'membership.changed',
          organizationId,
          target: { type: 'membership', id: membership.id },
          reasonCode: change.kind === 'role' ? `role_${change.role}` : 'removed',
        }),
        this.kernel.audit.event(exchange, at, {
          actor,
          action: 'session.revoked',
          organizationId,
          target: { type: 'user', id: membership.userId },
          reasonCode: PRIVILEGE_CHANGE_REASON,
        }),
      ],
    });
    if (!result.ok) throw organizationFailure(result.code);
    return result.value.membership;
  }
}
