import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockMode } from '@mikro-orm/core';
import { knex } from '@mikro-orm/postgresql';
import { NoteSchema, noteMigrations } from '../../../test/support/note-entity.fixture.js';
import { openDatabase, type OpenDatabase } from './database.factory.js';
import { isEmbeddedPostgresUrl, startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';
import { EMBEDDED_POOL } from './mikro-orm.config.js';
import { runMigrations } from './migration-runner.js';

/**
 * These specs always use embedded PGlite, whatever DATABASE_URL says (`url: ''` forces it), so
 * the hooks and the tests that start it take the embedded bound (jest.config.js: 90 s embedded, 30 s
 * on a server) whatever the run: a PGlite boot on a busy 2-core CI machine can take 15 s and more.
 */
const EMBEDDED_BOUND = 120_000;

describe('startEmbeddedPostgres', () => {
  let pg: EmbeddedPostgres;
  let db: OpenDatabase;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
    db = await openDatabase({ url: pg.url, entities: [NoteSchema], migrations: { list: noteMigrations } });
  }, EMBEDDED_BOUND);

  afterAll(async () => {
    await db.close();
    await pg.close();
  });

  it('serves PostgreSQL on 127.0.0.1 at a random port', () => {
    expect(pg.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(pg.port).toBeGreaterThan(0);
    expect(isEmbeddedPostgresUrl(pg.url)).toBe(true);
  });

  it('answers plain pg clients and the stock MikroORM driver', async () => {
    const client = knex({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
    try {
      const { rows } = await client.raw<{ rows: { version: string }[] }>('select version()');
      expect(rows[0]!.version).toMatch(/^PostgreSQL \d+/);
    } finally {
      await client.destroy();
    }
    expect(db.orm.config.getDriver().constructor.name).toBe('PostgreSqlDriver');
    const [row] = await db.orm.em.fork().getConnection().execute<{ answer: number }[]>('select 41 + 1 as answer');
    expect(row!.answer).toBe(42);
  });

  it('uses a single pooled connection with a short acquire timeout', () => {
    expect(db.orm.config.get('pool')).toMatchObject(EMBEDDED_POOL);
  });

  it('serialises concurrent SELECT ... FOR UPDATE transactions', async () => {
    const em = db.orm.em.fork();
    const note = em.create(NoteSchema, { title: 'locked' });
    await em.flush();
    await Promise.all(
      Array.from({ length: 10 }, () =>
        db.orm.em.fork().transactional(async (tx) => {
          const row = await tx.findOneOrFail(NoteSchema, note.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
          row.counter += 1;
        }),
      ),
    );
    const fresh = await db.orm.em.fork().findOneOrFail(NoteSchema, note.id);
    expect(fresh.counter).toBe(10);
  });

  it('rolls back a failed transaction and keeps serving queries', async () => {
    const title = `rolled-back-${Date.now()}`;
    await expect(
      db.orm.em.fork().transactional(async (tx) => {
        tx.create(NoteSchema, { title });
        await tx.flush();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await db.orm.em.fork().count(NoteSchema, { title })).toBe(0);
  });

  it('fails fast instead of deadlocking when a second connection is used inside a transaction', async () => {
    const quick = await openDatabase({ url: pg.url, entities: [NoteSchema], pool: { acquireTimeoutMillis: 300 } });
    try {
      const outside = quick.orm.em.fork();
      await expect(
        quick.orm.em.fork().transactional(async (tx) => {
          await tx.count(NoteSchema);
          await outside.count(NoteSchema); // another connection: PGlite would wait for this transaction forever
        }),
      ).rejects.toThrow(/Timeout acquiring a connection/);
      expect(await quick.orm.em.fork().count(NoteSchema)).toBeGreaterThan(0);
    } finally {
      await quick.close();
    }
  });
});

describe('embedded data directory', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-db-spec-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'keeps data and applied migrations across close and restart',
    async () => {
      const dataDir = join(dir, 'pglite');
      const options = { url: '', embedded: { dataDir }, entities: [NoteSchema], migrations: { list: noteMigrations } };
      const first = await openDatabase(options);
      await first.orm.em.fork().insert(NoteSchema, { title: 'persisted', counter: 7 });
      await first.close();

      const second = await openDatabase(options);
      try {
        const note = await second.orm.em.fork().findOneOrFail(NoteSchema, { title: 'persisted' });
        expect(note.counter).toBe(7);
        expect(await runMigrations(second.orm)).toEqual([]);
      } finally {
        await second.close();
      }
    },
    EMBEDDED_BOUND,
  );

  it(
    'refuses to open a data directory that is already open',
    async () => {
      const dataDir = join(dir, 'busy');
      const pg = await startEmbeddedPostgres({ dataDir });
      try {
        await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(/is in use/);
      } finally {
        await pg.close();
      }
      const again = await startEmbeddedPostgres({ dataDir });
      await again.close();
    },
    EMBEDDED_BOUND,
  );
});
