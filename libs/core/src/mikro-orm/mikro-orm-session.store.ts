import { LockMode, type EntityManager } from '@mikro-orm/core';
import crypto from 'node:crypto';
import { CoreConfigError } from '../core.errors.js';
import { sha256Hex } from '../digest.js';
import { createCorePrincipal, type CorePrincipal } from '../principal.js';
import type { CoreSession, CoreSessionGrant, CoreSessionStore } from '../session-store.js';
import { assertCoreSessionTtl, generateCoreSessionToken, isCoreSessionToken } from '../session-token.js';
import { CoreSessionSchema, type CoreSessionRecord } from './core-session.entity.js';

/**
 * Options of {@link MikroOrmCoreSessionStore}.
 *
 * @example
 * new MikroOrmCoreSessionStore(orm.em, { clock: () => frozenNow });
 */
export interface MikroOrmCoreSessionStoreOptions {
  /** The store's clock for creation, expiry and touches (tests freeze it). @default () => new Date() */
  clock?: () => Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The {@link CoreSessionStore} on MikroORM 6 + PostgreSQL (or PGlite), table
 * `tessera_core.core_session`: stores SHA-256 digests only, forks the given EntityManager for
 * every call and runs each command in its own transaction. Register `coreEntities` and
 * `coreMigrations` with the ORM.
 *
 * @example
 * const store = new MikroOrmCoreSessionStore(orm.em);
 * const { token } = await store.create(principal, 8 * 3600);
 */
export class MikroOrmCoreSessionStore implements CoreSessionStore {
  private readonly clock: () => Date;

  constructor(
    private readonly em: EntityManager,
    options: MikroOrmCoreSessionStoreOptions = {},
  ) {
    if (em === null || typeof em !== 'object' || typeof em.fork !== 'function') {
      throw new CoreConfigError(
        'invalid_session_store_options',
        'MikroOrmCoreSessionStore needs a MikroORM EntityManager (orm.em)',
      );
    }
    if (options.clock !== undefined && typeof options.clock !== 'function') {
      throw new CoreConfigError(
        'invalid_session_store_options',
        'MikroOrmCoreSessionStore: clock must be a function returning a Date',
      );
    }
    this.clock = options.clock ?? (() => new Date());
  }

  async create(principal: CorePrincipal, ttlSeconds: number): Promise<CoreSessionGrant> {
    const checked = createCorePrincipal(principal);
    assertCoreSessionTtl(ttlSeconds);
    const now = this.now();
    const token = generateCoreSessionToken();
    const record: CoreSessionRecord = {
      id: crypto.randomUUID(),
      tokenDigest: sha256Hex(token),
      principalKind: checked.kind,
      principalId: checked.id,
      roles: [...checked.roles],
      permissions: [...checked.permissions],
      attributes: checked.attributes === undefined ? null : { ...checked.attributes },
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
      lastSeenAt: now,
      revokedAt: null,
    };
    await this.em.fork().transactional((em) => em.insert(CoreSessionSchema, record));
    return { id: record.id, token, expiresAt: record.expiresAt };
  }

  async findByToken(token: string): Promise<CoreSession | null> {
    if (!isCoreSessionToken(token)) return null;
    const now = this.now();
    const record = await this.em.fork().findOne(CoreSessionSchema, {
      tokenDigest: sha256Hex(token),
      revokedAt: null,
      expiresAt: { $gt: now },
    });
    return record === null ? null : toSession(record);
  }

  async touch(id: string, ttlSeconds: number): Promise<CoreSession | null> {
    assertCoreSessionTtl(ttlSeconds);
    if (!isUuid(id)) return null;
    const now = this.now();
    return this.em.fork().transactional(async (em) => {
      const record = await em.findOne(
        CoreSessionSchema,
        { id, revokedAt: null, expiresAt: { $gt: now } },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (record === null) return null;
      record.lastSeenAt = now;
      record.expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
      await em.flush();
      return toSession(record);
    });
  }

  async revoke(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const now = this.now();
    const count = await this.em
      .fork()
      .transactional((em) =>
        em.nativeUpdate(CoreSessionSchema, { id, revokedAt: null, expiresAt: { $gt: now } }, { revokedAt: now }),
      );
    return count > 0;
  }

  async revokeAllFor(principal: Pick<CorePrincipal, 'kind' | 'id'>): Promise<number> {
    if (typeof principal?.kind !== 'string' || typeof principal.id !== 'string') {
      throw new CoreConfigError('invalid_principal', 'revokeAllFor needs a principal kind and id');
    }
    const now = this.now();
    return this.em
      .fork()
      .transactional((em) =>
        em.nativeUpdate(
          CoreSessionSchema,
          { principalKind: principal.kind, principalId: principal.id, revokedAt: null, expiresAt: { $gt: now } },
          { revokedAt: now },
        ),
      );
  }

  /**
   * Deletes up to `limit` sessions that are expired or revoked (bounded, so it can run on a
   * schedule without long locks); returns how many were deleted.
   *
   * @example
   * setInterval(() => void store.purgeInactive(500), 60_000);
   */
  async purgeInactive(limit = 500): Promise<number> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
      throw new CoreConfigError('invalid_session_store_options', 'purgeInactive: limit must be an integer in 1..10000');
    }
    const now = this.now();
    return this.em.fork().transactional(async (em) => {
      const stale = await em.find(
        CoreSessionSchema,
        { $or: [{ expiresAt: { $lte: now } }, { revokedAt: { $ne: null } }] },
        { fields: ['id'], limit, orderBy: { expiresAt: 'asc' } },
      );
      if (stale.length === 0) return 0;
      return em.nativeDelete(CoreSessionSchema, { id: { $in: stale.map((row) => row.id) } });
    });
  }

  private now(): Date {
    const now = this.clock();
    if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
      throw new CoreConfigError(
        'invalid_session_store_options',
        'MikroOrmCoreSessionStore: the clock returned an invalid Date',
      );
    }
    return now;
  }
}

function isUuid(id: unknown): id is string {
  return typeof id === 'string' && UUID.test(id);
}

function toSession(record: CoreSessionRecord): CoreSession {
  const principal = createCorePrincipal({
    kind: record.principalKind,
    id: record.principalId,
    roles: record.roles,
    permissions: record.permissions,
    ...(record.attributes === null ? {} : { attributes: record.attributes }),
  });
  return Object.freeze({
    id: record.id,
    principal,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    lastSeenAt: record.lastSeenAt,
  });
}
