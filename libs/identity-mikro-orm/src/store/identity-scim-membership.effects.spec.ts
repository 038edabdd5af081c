import { describe, expect, it } from '@jest/globals';
import type { AuditEventInput } from '@tessera/identity';
import type { Row, Sql } from './identity-store.gateway.js';
import { flushAudits, reconcileMemberships, type ScimBatchContext } from './identity-scim-membership.effects.js';

const AT = new Date('2031-05-01T10:00:00.000Z');
const ORGANIZATION = '01900000-0000-7000-8000-000000000000';
const uuid = (kind: number, n: number) => `01900000-000${kind}-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** A statement recorder answering each statement kind of the reconciliation with canned rows. */
function recordingSql(members: number, federatedSessions: number) {
  const statements: string[] = [];
  const sql: Sql = async (query) => {
    statements.push(query);
    const range = (n: number) => Array.from({ length: n }, (_, i) => i);
    if (query.includes('with rules'))
      return range(members).map((i) => ({ id: uuid(1, i), user_id: uuid(2, i), wanted: true, rank: 2 }));
    if (query.includes('for update') && query.includes('memberships'))
      return range(members).map((i): Row => ({
        id: uuid(3, i),
        organization_id: ORGANIZATION,
        user_id: uuid(2, i),
        role: 'viewer',
        state: 'active',
        created_at: AT,
        updated_at: AT,
        removed_at: null,
        version: 0,
      }));
    if (query.includes('memberships') && query.startsWith('update'))
      return range(members).map((i) => ({ id: uuid(3, i) }));
    if (query.includes('sessions')) return range(federatedSessions).map((i) => ({ id: uuid(4, i) }));
    return [];
  };
  return { sql, statements };
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
      // standings, family lock, membership lock, update, sessions, families (none active: no token statements)
      expect(statements).toHaveLength(6);
      expect(batch.audits).toHaveLength(members * 2);
      expect(batch.changes).toBe(members * 2);
    }
  });

  it('writes the queued audits a thousand rows per statement', async () => {
    const { sql, statements } = recordingSql(0, 0);
    const batch = context(sql);
    batch.audits.push(
      ...Array.from(
        { length: 2500 },
        (_, i) =>
          ({
            id: uuid(5, i),
            actor: { type: 'system' },
            organizationId: ORGANIZATION,
            action: 'membership.changed',
            target: { type: 'membership', id: uuid(3, i) },
            outcome: 'succeeded',
            reasonCode: null,
            request: null,
            occurredAt: AT,
          }) as unknown as AuditEventInput,
      ),
    );
    await flushAudits(batch);
    expect(statements).toHaveLength(3);
  });
});
