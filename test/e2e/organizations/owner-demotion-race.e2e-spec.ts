import { describe, it, expect, beforeEach, afterEach, jest } from '@jest/globals';
import { knex } from '@mikro-orm/postgresql';
import type { Response } from 'supertest';
import type { IdentityStore } from '@tessera/identity';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { identityKernelOf } from '../../support/identity-kernel.js';
import {
  auditsOf,
  call,
  codeOf,
  membershipPath,
  membershipRow,
  rowsOf,
  seedMember,
  type Member,
} from './organization-fixtures.js';

// Issue 11 item 10: the route checks the actor's owner role on its own read, before the command's
// transaction; a demotion committed after that read must still stop the owner-only change. The
// store re-checks the actor among the owner memberships it locks (`mutateMembership`).

const DEMOTE = `update tessera_identity.memberships
  set role = 'admin', version = version + 1, updated_at = ? where id = ?`;

describe('an owner demoted while their owner-only change is in flight', () => {
  let identity: IdentityTestApp;
  let organizationId: string;
  let owner: Member;
  let coOwner: Member;
  let admin: Member;
  beforeEach(async () => {
    identity = await bootIdentityApp();
    organizationId = await rowsOf(identity).organization({ at: identity.clock.now() });
    owner = await seedMember(identity, organizationId, 'owner');
    coOwner = await seedMember(identity, organizationId, 'owner');
    admin = await seedMember(identity, organizationId, 'admin');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await identity?.close();
  });

  /** The owner-only change under test: `owner` promotes `admin` to owner (step-up holds). */
  const promote = (): Promise<Response> =>
    call(identity, 'patch', membershipPath(organizationId, admin.membershipId), owner.session, { role: 'owner' });

  /** Demotes `member` to admin in its own committed statement, as a concurrent demotion would. */
  const demote = async (member: Member) => {
    await rowsOf(identity).sql(DEMOTE, [identity.clock.now(), member.membershipId]);
  };

  /**
   * Runs `between` after the route has read and checked the actor's role, just before the store
   * command's transaction starts: the window a concurrent demotion commits in.
   */
  const betweenReadAndCommand = (between: () => Promise<void>) => {
    const store: IdentityStore = identityKernelOf(identity.app).store;
    const original = store.mutateMembership.bind(store);
    return jest.spyOn(store, 'mutateMembership').mockImplementation(async (input) => {
      await between();
      return original(input);
    });
  };

  async function expectRefusedAndUnchanged(res: Response): Promise<void> {
    expect({ status: res.status, code: codeOf(res) }).toEqual({ status: 404, code: 'not_found' });
    expect(await membershipRow(identity, admin.membershipId)).toMatchObject({ role: 'admin', version: 0 });
    expect(await auditsOf(identity, 'membership.changed', admin.membershipId)).toEqual([]);
    expect(await auditsOf(identity, 'session.revoked', admin.userId)).toEqual([]);
  }

  async function expectPromotedBy(res: Response, actor: Member): Promise<void> {
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: admin.membershipId, role: 'owner', version: 1 });
    expect(await membershipRow(identity, admin.membershipId)).toMatchObject({ role: 'owner', version: 1 });
    expect(await auditsOf(identity, 'membership.changed', admin.membershipId)).toEqual([
      expect.objectContaining({ actor_user_id: actor.userId, reason_code: 'role_owner' }),
    ]);
  }

  it('cannot finish it when the demotion commits between the route’s role check and the command (404, nothing changed)', async () => {
    const command = betweenReadAndCommand(() => demote(owner));
    const res = await promote();
    expect(command).toHaveBeenCalledTimes(1);
    await expectRefusedAndUnchanged(res);
    expect(await membershipRow(identity, owner.membershipId)).toMatchObject({ role: 'admin', version: 1 });
  });

  it('still finishes it when another owner, not the actor, is demoted in that same window', async () => {
    const command = betweenReadAndCommand(() => demote(coOwner));
    const res = await promote();
    expect(command).toHaveBeenCalledTimes(1);
    await expectPromotedBy(res, owner);
    expect(await membershipRow(identity, owner.membershipId)).toMatchObject({ role: 'owner', version: 0 });
  });

  // Row locks need two backend sessions: embedded PGlite serves every connection from one session,
  // so a lock held on one never blocks another. The cases above cover PGlite; these race for real.
  if (process.env['DATABASE_URL']) {
    describe('on a PostgreSQL server, with the actor’s membership row locked by the demotion', () => {
      let db: ReturnType<typeof knex>;
      beforeEach(() => {
        db = knex({ client: 'pg', connection: identity.database.url, pool: { min: 0, max: 2 } });
      });
      afterEach(async () => db?.destroy());

      /**
       * Holds the actor's membership row `FOR UPDATE` in its own transaction, fires the promotion,
       * waits until the command visibly waits on that lock, runs `whileHeld` in the holding
       * transaction and commits; answers the promotion's response.
       */
      async function promoteWhileLocked(whileHeld: (trx: ReturnType<typeof knex>) => Promise<void>) {
        const trx = await db.transaction();
        try {
          await trx.raw('select id from tessera_identity.memberships where id = ? for update', [owner.membershipId]);
          const pending = promote().then((res) => res);
          await waitForLockWaiter(db, pending);
          await whileHeld(trx);
          await trx.commit();
          return await pending;
        } finally {
          if (!trx.isCompleted()) await trx.rollback();
        }
      }

      it('cannot finish it when the demotion commits while the change waits on the actor’s row (404)', async () => {
        const res = await promoteWhileLocked(async (trx) => {
          await trx.raw(DEMOTE, [identity.clock.now(), owner.membershipId]);
        });
        await expectRefusedAndUnchanged(res);
        expect(await membershipRow(identity, owner.membershipId)).toMatchObject({ role: 'admin', version: 1 });
      });

      it('finishes it once the lock is released when the actor is still owner', async () => {
        const res = await promoteWhileLocked(async () => undefined);
        await expectPromotedBy(res, owner);
      });
    });
  }
});

/**
 * Polls (bounded, 5 s) until another backend of the test database waits on a lock; fails early
 * when the request answered instead of blocking.
 */
async function waitForLockWaiter(db: ReturnType<typeof knex>, pending: Promise<Response>): Promise<void> {
  let answered: Response | undefined;
  void pending.then((res) => (answered = res));
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const { rows } = (await db.raw(
      `select count(*)::int as waiting from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
    )) as { rows: { waiting: number }[] };
    if (rows[0]!.waiting > 0) return;
    if (answered) throw new Error(`the request answered ${answered.status} without waiting on the lock`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the request never waited on the membership lock');
}
