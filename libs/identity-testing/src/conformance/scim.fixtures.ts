import { randomBytes } from 'node:crypto';
import { EMPTY_SCIM_USER } from '@tessera/identity';
import type {
  AuditEventInput,
  ScimBatchResult,
  ScimGroupRoleRule,
  ScimMutation,
  ScimReceiptInput,
  ScimTenant,
  ScimUserAttributes,
  StoreResult,
} from '@tessera/identity';
import { testAuditEvent, testBase64Url, testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

/** The first 50 resources of a list, unfiltered, in the default order. */
export const SCIM_PAGE = { filter: null, sortBy: null, sortOrder: 'ascending', startIndex: 1, count: 50 } as const;

/**
 * The stored attributes of a minimal SCIM user named `userName` (active), with `over` applied.
 *
 * @example
 * const attributes = scimAttributes('ada@example.com', { active: false });
 */
export function scimAttributes(userName: string, over: Partial<ScimUserAttributes> = {}): ScimUserAttributes {
  return { ...EMPTY_SCIM_USER, userName, ...over };
}

/**
 * A receipt of `path` whose request digest is `digest` (a fresh one unless given).
 *
 * @example
 * await scim.apply(tenant, mutation, { receipt: scimReceipt({ method: 'PUT' }) });
 */
export function scimReceipt(over: Partial<ScimReceiptInput> = {}): ScimReceiptInput {
  return {
    operationId: testUuidV7(),
    method: 'POST',
    path: '/scim/v2/Users',
    precondition: null,
    requestDigest: testBase64Url(),
    ...over,
  };
}

/**
 * Builders of the SCIM conformance cases: tenants, batches through the port (every audit built by
 * the batch's factory is remembered), and SCIM users linked to seeded identity users.
 *
 * @example
 * const scim = new ScimFixture(world);
 * const tenant = await scim.tenant();
 * const { scimUserId } = await scim.createUser(tenant, 'ada@example.com');
 */
export class ScimFixture {
  /** Every audit event the factories built, in order. */
  readonly audits: AuditEventInput[] = [];

  constructor(private readonly world: ConformanceWorld) {}

  /** A tenant of `organizationId` (a fresh organization unless given) with a fresh provider name. */
  async tenant(organizationId?: string): Promise<ScimTenant> {
    const id = organizationId ?? (await this.world.rows.organization({ at: this.world.tick() }));
    const providerName = `okta-${randomBytes(3).toString('hex')}`;
    return { organizationId: id, providerName, provider: `${providerName}:${id}` };
  }

  /** Applies `mutation` as one batch at a new instant. */
  apply(
    tenant: ScimTenant,
    mutation: ScimMutation,
    over: { receipt?: ScimReceiptInput | null; groupRoles?: readonly ScimGroupRoleRule[]; at?: Date } = {},
  ): Promise<StoreResult<ScimBatchResult>> {
    const at = over.at ?? this.world.tick();
    return this.world.store.applyScimBatch({
      tenant,
      receipt: over.receipt ?? null,
      mutation,
      groupRoles: over.groupRoles ?? [],
      at,
      audit: (facts) => {
        const event = {
          ...testAuditEvent({ action: facts.action, at, organizationId: tenant.organizationId, target: facts.target }),
          outcome: facts.outcome ?? 'succeeded',
        };
        this.audits.push(event);
        return event;
      },
    });
  }

  /** The `createUser` mutation of a new user `userName`. */
  createMutation(
    userName: string,
    over: Partial<ScimUserAttributes> = {},
  ): Extract<ScimMutation, { kind: 'createUser' }> {
    return {
      kind: 'createUser',
      scimUserId: testUuidV7(),
      userId: testUuidV7(),
      membershipId: testUuidV7(),
      userDisplayName: userName,
      attributes: scimAttributes(userName, over),
    };
  }

  /** A SCIM user created through the port; its ids. */
  async createUser(tenant: ScimTenant, userName: string, over: Partial<ScimUserAttributes> = {}) {
    const mutation = this.createMutation(userName, over);
    unwrap(await this.apply(tenant, mutation));
    return { scimUserId: mutation.scimUserId, userId: mutation.userId, membershipId: mutation.membershipId };
  }

  /** A group created through the port with `memberIds`; its id. */
  async createGroup(
    tenant: ScimTenant,
    displayName: string,
    memberIds: string[],
    over: { externalId?: string | null; groupRoles?: readonly ScimGroupRoleRule[] } = {},
  ): Promise<string> {
    const groupId = testUuidV7();
    unwrap(
      await this.apply(
        tenant,
        { kind: 'createGroup', groupId, displayName, externalId: over.externalId ?? null, memberIds },
        { groupRoles: over.groupRoles ?? [] },
      ),
    );
    return groupId;
  }

  /** A SCIM user of `tenant` provisioning the already seeded identity user `userId` (version 1). */
  async link(tenant: ScimTenant, userId: string, userName: string): Promise<string> {
    const id = testUuidV7();
    const at = this.world.clock.now();
    await this.world.rows.insert('scim_users', {
      id,
      organization_id: tenant.organizationId,
      provider: tenant.provider,
      user_id: userId,
      user_name: userName,
      active: true,
      state: 'active',
      created_at: at,
      updated_at: at,
      version: 1,
    });
    return id;
  }

  /** The `replaceUser` mutation setting `active` (and nothing else) of the stored user. */
  async setActive(
    tenant: ScimTenant,
    scimUserId: string,
    active: boolean,
    groupRoles: readonly ScimGroupRoleRule[] = [],
  ) {
    const user = await this.world.store.findScimUser(tenant, scimUserId);
    if (user === null) throw new Error('no such SCIM user');
    const {
      id: _id,
      organizationId: _o,
      provider: _p,
      userId: _u,
      createdAt: _c,
      updatedAt: _m,
      version,
      ...attributes
    } = user;
    return this.apply(
      tenant,
      {
        kind: 'replaceUser',
        scimUserId,
        expectedVersion: version,
        userDisplayName: user.userName,
        attributes: { ...attributes, active },
      },
      { groupRoles },
    );
  }

  /** Role and state of the membership `id`. */
  async membership(id: string): Promise<{ role: string; state: string } | null> {
    const membership = await this.world.store.findMembership(id);
    return membership === null ? null : { role: membership.role, state: membership.state };
  }
}
