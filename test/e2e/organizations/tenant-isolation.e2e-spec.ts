import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { testUuidV7 } from '@tessera/identity-testing';
import { bootIdentityApp, seedPasskeySession, type IdentityTestApp } from '../../support/identity-app.js';
import type { TestSession } from '../../support/passkey-client.js';
import {
  call,
  membershipPath,
  membershipsPath,
  organizationPath,
  rowsOf,
  seedMember,
  withoutRequestId,
  type Member,
} from './organization-fixtures.js';

/** Routes 23–28 on organization `org`, naming membership `membership` where they take one. */
const ROUTES = [
  { route: 23, method: 'get', path: (org: string) => organizationPath(org) },
  { route: 24, method: 'patch', path: (org: string) => organizationPath(org), body: { name: 'Taken Over' } },
  { route: 25, method: 'delete', path: (org: string) => organizationPath(org) },
  { route: 26, method: 'get', path: (org: string) => membershipsPath(org) },
  {
    route: 27,
    method: 'patch',
    path: (org: string, membership: string) => membershipPath(org, membership),
    body: { role: 'admin' },
  },
  { route: 28, method: 'delete', path: (org: string, membership: string) => membershipPath(org, membership) },
] as const;

/** No membership, another tenant, missing capability, unknown, deleted, suspended organization. */
const CELLS_PER_ROUTE = 6;

const NOT_FOUND = {
  status: 404,
  contentType: 'application/json; charset=utf-8',
  body: {
    error: { code: 'not_found', message: 'The requested identity resource was not found', retryable: false },
  },
};

describe('organization tenant isolation (routes 23–28)', () => {
  let identity: IdentityTestApp;
  let tenant: string;
  let owner: Member;
  let viewer: Member;
  let publisher: Member;
  let removed: Member;
  let otherOwner: Member;
  let otherOrganization: string;
  let deletedOrganization: string;
  let deletedOwner: Member;
  let suspendedOrganization: string;
  let suspendedOwner: Member;
  let outsider: TestSession;

  beforeAll(async () => {
    identity = await bootIdentityApp();
    const rows = rowsOf(identity);
    tenant = await rows.organization({ at: identity.clock.now() });
    owner = await seedMember(identity, tenant, 'owner');
    viewer = await seedMember(identity, tenant, 'viewer');
    publisher = await seedMember(identity, tenant, 'publisher');
    removed = await seedMember(identity, tenant, 'admin', { state: 'removed' });
    otherOrganization = await rows.organization({ at: identity.clock.now() });
    otherOwner = await seedMember(identity, otherOrganization, 'owner');
    deletedOrganization = await rows.organization({ state: 'deleted', at: identity.clock.now() });
    deletedOwner = await seedMember(identity, deletedOrganization, 'owner');
    suspendedOrganization = await rows.organization({ state: 'suspended', at: identity.clock.now() });
    suspendedOwner = await seedMember(identity, suspendedOrganization, 'owner');
    outsider = await seedPasskeySession(identity);
  });
  afterAll(async () => identity?.close());

  /**
   * Every cell: who calls, on which organization, naming which membership. "Missing capability"
   * is a viewer where the route needs more than membership; routes 23 and 26 admit every role, so
   * there it is a member whose membership was removed.
   */
  function cells() {
    const unknown = testUuidV7();
    return ROUTES.flatMap((r) => {
      const lacking = r.route === 23 || r.route === 26 ? removed : viewer;
      return [
        { who: 'no membership', session: outsider, org: tenant, membership: publisher.membershipId },
        {
          who: "another organization's owner",
          session: otherOwner.session,
          org: tenant,
          membership: publisher.membershipId,
        },
        { who: 'missing capability', session: lacking.session, org: tenant, membership: publisher.membershipId },
        { who: 'unknown organization', session: otherOwner.session, org: unknown, membership: publisher.membershipId },
        {
          who: 'deleted organization',
          session: deletedOwner.session,
          org: deletedOrganization,
          membership: deletedOwner.membershipId,
        },
        {
          who: 'suspended organization',
          session: suspendedOwner.session,
          org: suspendedOrganization,
          membership: suspendedOwner.membershipId,
        },
      ].map((cell) => ({ ...cell, ...r }));
    });
  }

  it('answers every cell of the matrix with the identical 404 body, request id aside', async () => {
    const answers: Record<string, unknown> = {};
    const requestIds = new Set<string>();
    for (const cell of cells()) {
      const body = 'body' in cell ? { ...cell.body } : undefined;
      const res = await call(identity, cell.method, cell.path(cell.org, cell.membership), cell.session, body);
      answers[`route ${cell.route} × ${cell.who}`] = withoutRequestId(res);
      requestIds.add(res.body.error.requestId);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect(Object.keys(answers)).toHaveLength(ROUTES.length * CELLS_PER_ROUTE);
    for (const [cell, answer] of Object.entries(answers)) expect({ cell, answer }).toEqual({ cell, answer: NOT_FOUND });
    expect(requestIds.size).toBe(ROUTES.length * CELLS_PER_ROUTE);
  });

  it("hides another organization's membership behind the caller's own organization path", async () => {
    const foreign = membershipPath(otherOrganization, publisher.membershipId);
    const change = await call(identity, 'patch', foreign, otherOwner.session, { role: 'viewer' });
    const removal = await call(identity, 'delete', foreign, otherOwner.session);
    expect([withoutRequestId(change), withoutRequestId(removal)]).toEqual([NOT_FOUND, NOT_FOUND]);
  });

  it('changed nothing: the tenant, its memberships and the audit log are as seeded', async () => {
    const rows = rowsOf(identity);
    const [organization] = await rows.sql('select * from tessera_identity.organizations where id = ?', [tenant]);
    expect(organization).toMatchObject({ state: 'active', version: 0, name: 'Seeded Organization' });
    const memberships = await rows.sql(
      'select id, role, state, version from tessera_identity.memberships where organization_id = ? order by id',
      [tenant],
    );
    expect(memberships.every((m) => Number(m['version']) === 0)).toBe(true);
    expect(await rows.count('audit_events', "action like 'organization.%' or action like 'membership.%'")).toBe(0);
  });

  it('answers the same routes for a rightful owner (the matrix is not vacuous)', async () => {
    expect((await call(identity, 'get', organizationPath(tenant), owner.session)).status).toBe(200);
    expect((await call(identity, 'get', membershipsPath(tenant), owner.session)).status).toBe(200);
    const renamed = await call(identity, 'patch', organizationPath(tenant), owner.session, { name: 'Still Ours' });
    expect(renamed.status).toBe(200);
    const promoted = await call(identity, 'patch', membershipPath(tenant, publisher.membershipId), owner.session, {
      role: 'admin',
    });
    expect(promoted.body).toMatchObject({ id: publisher.membershipId, role: 'admin' });
  });
});
