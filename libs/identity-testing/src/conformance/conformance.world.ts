import { expect } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/core';
import {
  FrozenClock,
  StoreError,
  type AuditActor,
  type AuditEventInput,
  type IdentityRateLimiter,
  type IdentityStore,
  type SessionRecord,
  type StoreResult,
} from '@tessera/identity';
import { newTestSession, testAuditEvent } from '../identity-test.rows.js';
import { IdentityTestRows } from '../identity-test.seed.js';

/** One store over one fresh database, as the suite needs it. */
export interface IdentityStoreHarness {
  /** A new store instance whose environment marker has not been verified yet. */
  readonly store: IdentityStore;
  /** Root EntityManager of the same database: the suite seeds and counts rows through it. */
  readonly em: EntityManager;
  /** Closes the store's database (and drops it, for a test database). */
  close(): Promise<void>;
}

/** Options of `runIdentityStoreConformance`. */
export interface IdentityStoreConformanceOptions {
  /** Names the implementation in the test titles. */
  readonly name: string;
  /** A fresh, migrated, empty database with a new store on it. */
  createStore(): Promise<IdentityStoreHarness>;
  /** A new rate-limiter instance on the harness's database (RATE_LIMIT_SHARED_COUNTER). */
  createRateLimiter(harness: IdentityStoreHarness): IdentityRateLimiter;
  /**
   * Commands raced at once in the concurrency cases.
   *
   * @default 10
   */
  readonly concurrency?: number;
}

/** The environment marker every provisioned suite store carries. */
export const TEST_MARKER = { environment: 'test', namespace: 'tessera_test' } as const;

/** The `value` of a successful result (fails the test otherwise). */
export function unwrap<T>(result: StoreResult<T>): T {
  if (!result.ok) throw new Error(`expected a successful store result, got ${result.code}`);
  return result.value;
}

/** Splits raced results into winners and the codes of the losers. */
export function partition<T>(results: StoreResult<T>[]): { winners: T[]; codes: string[]; indexes: number[] } {
  const winners: T[] = [];
  const codes: string[] = [];
  const indexes: number[] = [];
  results.forEach((result, index) => {
    if (result.ok) {
      winners.push(result.value);
      indexes.push(index);
    } else codes.push(result.code);
  });
  return { winners, codes, indexes };
}

/** Asserts that every code is retryable `version_conflict`. */
export function expectRetryableConflicts(codes: string[]): void {
  for (const code of codes) {
    expect(code).toBe('version_conflict');
    expect(new StoreError(code as 'version_conflict').retryable).toBe(true);
  }
}

/**
 * A provisioned store shared by the cases of one describe block, with an organization, a frozen
 * clock and seeding helpers.
 */
export class ConformanceWorld {
  readonly clock = new FrozenClock('2031-05-01T10:00:00.000Z');
  readonly concurrency: number;
  private opened?: { harness: IdentityStoreHarness; rows: IdentityTestRows; organizationId: string };

  constructor(private readonly options: IdentityStoreConformanceOptions) {
    this.concurrency = Math.max(2, options.concurrency ?? 10);
  }

  async open(): Promise<void> {
    const harness = await this.options.createStore();
    unwrap(await harness.store.provisionEnvironment(TEST_MARKER));
    const rows = new IdentityTestRows(harness.em);
    this.opened = { harness, rows, organizationId: await rows.organization() };
  }

  async close(): Promise<void> {
    await this.opened?.harness.close();
  }

  private get world() {
    if (this.opened === undefined) throw new Error('the conformance world is not open');
    return this.opened;
  }

  get store(): IdentityStore {
    return this.world.harness.store;
  }

  get rows(): IdentityTestRows {
    return this.world.rows;
  }

  get organizationId(): string {
    return this.world.organizationId;
  }

  /** A new limiter instance on this world's database. */
  limiter(): IdentityRateLimiter {
    return this.options.createRateLimiter(this.world.harness);
  }

  /** Moves the clock one minute on and returns the new instant. */
  tick(): Date {
    return this.clock.advance({ minutes: 1 });
  }

  /** A user with `count` active sessions issued one second apart at the user's epoch. */
  async userWithSessions(
    count: number,
    over: { sessionEpoch?: number } = {},
  ): Promise<{ userId: string; sessions: SessionRecord[] }> {
    const at = this.tick();
    const userId = await this.rows.user({ sessionEpoch: over.sessionEpoch ?? 0, at });
    const sessions: SessionRecord[] = [];
    for (let i = 0; i < count; i++) {
      const session = newTestSession({ userId, at: new Date(at.getTime() + i * 1000) });
      await this.rows.session(session, { userSessionEpoch: over.sessionEpoch ?? 0 });
      sessions.push((await this.store.findSession(session.id))!);
    }
    return { userId, sessions };
  }

  /** An audit event at the current instant. */
  audit(action: string, actor: AuditActor, target?: { type: string; id: string }): AuditEventInput {
    return testAuditEvent({ action, at: this.clock.now(), actor, target: target ?? null });
  }

  /** How many of `events` were stored. */
  storedAudits(events: readonly AuditEventInput[]): Promise<number> {
    return events.length === 0
      ? Promise.resolve(0)
      : this.rows.count(
          'audit_events',
          `id in (${events.map(() => '?').join(', ')})`,
          events.map((e) => e.id),
        );
  }
}
