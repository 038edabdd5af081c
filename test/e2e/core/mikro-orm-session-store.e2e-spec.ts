import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  CoreConfigError,
  coreEntities,
  coreMigrations,
  CoreSessionSchema,
  createCorePrincipal,
  generateCoreSessionToken,
  MikroOrmCoreSessionStore,
  sha256Hex,
} from '@tessera/core';
import { createTestDatabase, openDatabase, type OpenDatabase, type TestDatabase } from '@tessera/database';

/** Runs on embedded PGlite, or on a fresh database of the DATABASE_URL server when it is set. */
describe(`MikroOrmCoreSessionStore (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let testDb: TestDatabase;
  let db: OpenDatabase;
  let now: Date;
  let store: MikroOrmCoreSessionStore;
  const ops = createCorePrincipal({
    kind: 'basic',
    id: 'ops',
    roles: ['operator'],
    permissions: ['cache.flush'],
    attributes: { team: 'sre', level: 2, pager: true },
  });
  const ci = createCorePrincipal({ kind: 'api_key', id: 'ci', permissions: ['deploy.write'] });
  const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
  const sql = <T extends Record<string, unknown>[] = Record<string, unknown>[]>(
    query: string,
    params: unknown[] = [],
  ) => db.orm.em.fork().getConnection().execute<T>(query, params);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({
      url: testDb.url,
      entities: [...coreEntities],
      migrations: { list: [...coreMigrations] },
    });
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.close();
  });

  beforeEach(async () => {
    await sql('delete from tessera_core.core_session');
    now = new Date('2031-03-01T12:00:00.000Z');
    store = new MikroOrmCoreSessionStore(db.orm.em, { clock: () => now });
  });

  it('applies the core migration into schema tessera_core under its namespaced name', async () => {
    const migrations = await sql<{ name: string }[]>('select name from mikro_orm_migrations');
    expect(migrations.map((m) => m.name)).toEqual(['tessera_core_20250601000000_core_session']);
    const tables = await sql<{ table_schema: string }[]>(
      `select table_schema from information_schema.tables where table_name = 'core_session'`,
    );
    expect(tables).toEqual([{ table_schema: 'tessera_core' }]);
  });

  it('stores only the SHA-256 digest: the raw secret appears nowhere in the table', async () => {
    const grant = await store.create(ops, 3600);
    expect(grant.token).toMatch(/^tcs_[A-Za-z0-9_-]{43}$/);
    const rows = await sql<Record<string, unknown>[]>(
      'select t::text as row_text, token_digest from tessera_core.core_session t',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!['token_digest']).toBe(sha256Hex(grant.token));
    const text = String(rows[0]!['row_text']);
    expect(text).not.toContain(grant.token);
    expect(text).not.toContain(grant.token.slice(4));
    expect(text).not.toContain(Buffer.from(grant.token.slice(4), 'base64url').toString('hex'));
  });

  it('finds an active session by its token with the principal intact', async () => {
    const grant = await store.create(ops, 3600);
    const session = await store.findByToken(grant.token);
    expect(session).toEqual({ id: grant.id, principal: ops, createdAt: now, expiresAt: later(3600), lastSeenAt: now });
    expect(grant.expiresAt).toEqual(later(3600));
  });

  it('finds nothing for an unknown, malformed or digest-shaped token', async () => {
    const grant = await store.create(ops, 3600);
    expect(await store.findByToken(generateCoreSessionToken())).toBeNull();
    expect(await store.findByToken(`${grant.token}x`)).toBeNull();
    expect(await store.findByToken(grant.token.slice(0, -1))).toBeNull();
    expect(await store.findByToken(sha256Hex(grant.token))).toBeNull();
    expect(await store.findByToken("tcs_' or 1=1 --")).toBeNull();
  });

  it('expires a session at expiresAt: not found, not touchable, not revocable afterwards', async () => {
    const grant = await store.create(ops, 60);
    now = later(59);
    expect(await store.findByToken(grant.token)).not.toBeNull();
    now = later(1);
    expect(await store.findByToken(grant.token)).toBeNull();
    expect(await store.touch(grant.id, 3600)).toBeNull();
    expect(await store.revoke(grant.id)).toBe(false);
  });

  it('slides an active session on touch', async () => {
    const grant = await store.create(ops, 60);
    const created = now;
    now = later(45);
    const touched = await store.touch(grant.id, 60);
    expect(touched).toMatchObject({ id: grant.id, createdAt: created, lastSeenAt: now, expiresAt: later(60) });
    now = later(59);
    expect((await store.findByToken(grant.token))?.expiresAt).toEqual(touched!.expiresAt);
    now = later(1);
    expect(await store.findByToken(grant.token)).toBeNull();
  });

  it('revokes one session once: later lookups and touches fail', async () => {
    const grant = await store.create(ops, 3600);
    const other = await store.create(ops, 3600);
    expect(await store.revoke(grant.id)).toBe(true);
    expect(await store.revoke(grant.id)).toBe(false);
    expect(await store.findByToken(grant.token)).toBeNull();
    expect(await store.touch(grant.id, 3600)).toBeNull();
    expect(await store.findByToken(other.token)).not.toBeNull();
    const [row] = await sql<{ revoked_at: Date }[]>('select revoked_at from tessera_core.core_session where id = ?', [
      grant.id,
    ]);
    expect(new Date(row!.revoked_at)).toEqual(now);
  });

  it('has exactly one winner when the same session is revoked concurrently', async () => {
    const grant = await store.create(ops, 3600);
    const results = await Promise.all(Array.from({ length: 8 }, () => store.revoke(grant.id)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('does not resurrect a session revoked while a touch was pending', async () => {
    const grant = await store.create(ops, 60);
    const [touched, revoked] = await Promise.all([store.touch(grant.id, 3600), store.revoke(grant.id)]);
    expect(revoked).toBe(true);
    expect(await store.findByToken(grant.token)).toBeNull();
    if (touched !== null) expect(touched.expiresAt).toEqual(later(3600));
  });

  it('answers false and null for ids that are not UUIDs instead of failing the query', async () => {
    expect(await store.revoke('1 or 1=1')).toBe(false);
    expect(await store.touch('not-a-uuid', 60)).toBeNull();
  });

  it('revokes every active session of one principal and no other', async () => {
    const first = await store.create(ops, 3600);
    const second = await store.create(ops, 7200);
    const unrelated = await store.create(ci, 3600);
    const sameIdOtherKind = await store.create(createCorePrincipal({ kind: 'api_key', id: 'ops' }), 3600);
    expect(await store.revokeAllFor({ kind: 'basic', id: 'ops' })).toBe(2);
    expect(await store.findByToken(first.token)).toBeNull();
    expect(await store.findByToken(second.token)).toBeNull();
    expect(await store.findByToken(unrelated.token)).not.toBeNull();
    expect(await store.findByToken(sameIdOtherKind.token)).not.toBeNull();
    expect(await store.revokeAllFor(ops)).toBe(0);
  });

  it('purges expired and revoked sessions in bounded batches and keeps active ones', async () => {
    const active = await store.create(ops, 3600);
    const revoked = await store.create(ops, 3600);
    await store.revoke(revoked.id);
    await store.create(ci, 10);
    await store.create(ci, 20);
    now = later(30);
    expect(await store.purgeInactive(2)).toBe(2);
    expect(await store.purgeInactive(2)).toBe(1);
    expect(await store.purgeInactive(2)).toBe(0);
    expect(await store.findByToken(active.token)).not.toBeNull();
    expect(await db.orm.em.fork().count(CoreSessionSchema)).toBe(1);
  });

  it('validates the TTL and the principal before writing anything', async () => {
    await expect(store.create(ops, 0)).rejects.toThrow(CoreConfigError);
    await expect(store.create(ops, 1.5)).rejects.toThrow(CoreConfigError);
    await expect(store.create({ kind: 'Bad Kind', id: 'x', roles: [], permissions: [] }, 60)).rejects.toThrow(
      CoreConfigError,
    );
    await expect(store.touch('00000000-0000-4000-8000-000000000000', -1)).rejects.toThrow(CoreConfigError);
    expect(await db.orm.em.fork().count(CoreSessionSchema)).toBe(0);
  });

  it('enforces a unique token digest in the schema', async () => {
    const grant = await store.create(ops, 3600);
    const insert = sql(
      `insert into tessera_core.core_session (id, token_digest, principal_kind, principal_id, roles, permissions, created_at, expires_at, last_seen_at)
       values ('9b0e3b3e-8f3a-4c55-9d7e-2c1e6f1a0b11', ?, 'basic', 'mallory', '[]', '[]', now(), now() + interval '1 hour', now())`,
      [sha256Hex(grant.token)],
    );
    await expect(insert).rejects.toThrow(/core_session_token_digest_unique/);
  });

  it('refuses a raw token in the digest column through a CHECK constraint', async () => {
    const token = generateCoreSessionToken();
    const insert = sql(
      `insert into tessera_core.core_session (id, token_digest, principal_kind, principal_id, roles, permissions, created_at, expires_at, last_seen_at)
       values ('9b0e3b3e-8f3a-4c55-9d7e-2c1e6f1a0b12', ?, 'basic', 'mallory', '[]', '[]', now(), now() + interval '1 hour', now())`,
      [token.slice(0, 64).padEnd(64, 'x')],
    );
    await expect(insert).rejects.toThrow(/core_session_token_digest_check/);
  });

  it('refuses an expiry that is not after creation through a CHECK constraint', async () => {
    const insert = sql(
      `insert into tessera_core.core_session (id, token_digest, principal_kind, principal_id, roles, permissions, created_at, expires_at, last_seen_at)
       values ('9b0e3b3e-8f3a-4c55-9d7e-2c1e6f1a0b13', ?, 'basic', 'mallory', '[]', '[]', now(), now(), now())`,
      [sha256Hex('x')],
    );
    await expect(insert).rejects.toThrow(/core_session_expiry_check/);
  });
});
