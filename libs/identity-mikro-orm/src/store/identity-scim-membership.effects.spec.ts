import { describe, expect, it } from '@jest/globals';
import type { AuditEventInput } from '@tessera/identity';
import type { Row, Sql } from './identity-store.gateway.js';
import { flushAudits, reconcileMemberships, type ScimBatchContext } from './identity-scim-membership.effects.js';

const AT = new Date('2031-05-01T10:00:00.000Z');
const ORGANIZATION = '01900000-0000-7000-8000-000000000000';
const uuid = (kind: number, n: number) => `01900000-000${kind}-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** A statement recorder answering each statement kind of the reconciliation with canned rows. */
function recordingSql(
  members: number,
  federatedSessions: number,
  standing: { wanted: boolean; rank: number; role: string } = { wanted: true, rank: 2, role: 'viewer' },
  organizationState = 'active',
) {
  const statements: string[] = [];
  const sql: Sql = async (query) => {
    statements.push(query);
    if (query.startsWith('with pinned as')) return [{ organization_state: organizationState }];
    const range = (n: number) => Array.from({ length: n }, (_, i) => i);
    if (query.includes('with rules'))
      return range(members).map((i) => ({
        id: uuid(1, i),
        user_id: uuid(2, i),
        wanted: standing.wanted,
        rank: standing.rank,
        membership_role: standing.role,
        membership_state: 'active',
      }));
    if (query.includes('for update') && query.includes('memberships'))
      return range(members).map((i): Row => ({
        id: uuid(3, i),
        organization_id: ORGANIZATION,
        user_id: uuid(2, i),
        role: standing.role,
        state: 'active',
        created_at: AT,
        updated_at: AT,
        removed_at: null,
        version: 0,
      }));
    if (query.startsWith('with changed as'))
      return [
        {
          changed: members,
          sessions: range(federatedSessions).map((i) => uuid(4, i)),
          families: [],
          tokens: 0,
        },
      ];
    return [];
  };
  return { sql, statements };
}

function auditOf(i: number): AuditEventInput {
  return {
    id: uuid(5, i),
    actor: { type: 'system' },
    organizationId: ORGANIZATION,
    action: 'membership.changed',
    target: { type: 'membership', id: uuid(3, i) },
    outcome: 'succeeded',
    reasonCode: null,
    request: null,
    occurredAt: AT,
  } as unknown as AuditEventInput;
}

function context(sql: Sql): ScimBatchContext {
  return {
    sql,
    tenant: { organizationId: ORGANIZATION, providerName: 'okta', provider: `okta:${ORGANIZATION}` },
    at: AT,
    groupRoles: [{ match: { displayName: 'Admins' }, role: 'admin' }],
    audit: (facts) => ({ action: facts.action, target: facts.target }) as unknown as AuditEventInput,
    audits: [],
    changes: 0,
  };
}

describe('reconcileMemberships', () => {
  it('recomputes 1,000 members with a constant number of statements, not one round trip per member', async () => {
    for (const members of [1, 1000]) {
      const { sql, statements } = recordingSql(members, members);
      const batch = context(sql);
      await reconcileMemberships(
        batch,
        Array.from({ length: members }, (_, i) => uuid(1, i)),
      );
      // standings; families and memberships locked; memberships written with the revocations
      expect(statements).toHaveLength(3);
      expect(batch.audits).toHaveLength(members * 2);
      expect(batch.changes).toBe(members * 2);
    }
  });

  it('takes no lock when no membership would change (a rename, a group without a mapped role)', async () => {
    const { sql, statements } = recordingSql(3, 0, { wanted: true, rank: 0, role: 'viewer' });
    const batch = context(sql);
    await reconcileMemberships(batch, [uuid(1, 0), uuid(1, 1), uuid(1, 2)]);
    expect(statements).toHaveLength(1);
    expect(statements[0]).not.toContain('for update');
    expect(batch.audits).toHaveLength(0);
  });

  it("locks the organization's owners only when an owner leaves active", async () => {
    const promoted = recordingSql(1, 0, { wanted: true, rank: 2, role: 'viewer' });
    await reconcileMemberships(context(promoted.sql), [uuid(1, 0)]);
    const promotedLock = promoted.statements.find((q) => q.includes('memberships') && q.includes('for update'));
    expect(promotedLock).toBeDefined();
    expect(promotedLock).not.toContain("role = 'owner'");

    // The only owner deprovisioned: the owner set is locked with the membership, and the last-owner rule refuses.
    const owner = recordingSql(1, 0, { wanted: false, rank: 0, role: 'owner' });
    await expect(reconcileMemberships(context(owner.sql), [uuid(1, 0)])).rejects.toMatchObject({ code: 'last_owner' });
    const ownerLock = owner.statements.find((q) => q.includes('memberships') && q.includes('for update'));
    expect(ownerLock).toContain("role = 'owner'");
  });

  it('writes the queued audits a thousand rows per statement, the first one pinning the organization', async () => {
    const { sql, statements } = recordingSql(0, 0);
    const batch = context(sql);
    batch.audits.push(...Array.from({ length: 2500 }, (_, i) => auditOf(i)));
    await flushAudits(batch);
    expect(statements).toHaveLength(3);
    expect(statements[0]).toContain('for share');
    expect(statements.slice(1).every((q) => !q.includes('for share'))).toBe(true);
  });

  it('rolls the batch back (not_found) when the organization is no longer active at the end', async () => {
    const { sql } = recordingSql(0, 0, undefined, 'deleted');
    const batch = context(sql);
    batch.audits.push(auditOf(0));
    await expect(flushAudits(batch)).rejects.toMatchObject({ code: 'not_found' });
  });
});
