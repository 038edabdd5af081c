import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BigIntType, ReferenceKind, type EntityMetadata, type EntitySchema } from '@mikro-orm/core';
import { createTestDatabase, openDatabase, type OpenDatabase, type TestDatabase } from '@tessera/database';
import { IdentityCredentialSchema } from '../../../libs/identity-mikro-orm/src/entities/credentials.entity.js';
import { identityEntities } from '../../../libs/identity-mikro-orm/src/entities/identity.entities.js';
import { identityMigrations } from '../../../libs/identity-mikro-orm/src/migrations/identity-migrations.js';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
} from '../../../libs/identity-mikro-orm/src/schema/identity-schema.values.js';
import { IDENTITY_TABLES, IdentityRows, type IdentityTable, type Row } from './identity-rows.fixture.js';

/** Runs on embedded PGlite, or on a fresh database of the DATABASE_URL server when it is set. */
describe(`identity entities (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let testDb: TestDatabase;
  let db: OpenDatabase;
  let rows: IdentityRows;
  const sql = (query: string, params: unknown[] = []) => db.orm.em.fork().getConnection().execute<Row[]>(query, params);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({
      url: testDb.url,
      entities: [...identityEntities],
      migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
    });
    rows = new IdentityRows(sql);
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.close();
  });

  const metadataOf = (table: string): EntityMetadata =>
    Object.values(db.orm.getMetadata().getAll()).find(
      (meta) => meta.tableName === table && meta.schema === IDENTITY_SCHEMA,
    )!;
  const columnProps = (meta: EntityMetadata) =>
    meta.props.filter((prop) => prop.kind === ReferenceKind.SCALAR || prop.kind === ReferenceKind.MANY_TO_ONE);
  const primaryKeyOf = (meta: EntityMetadata, row: Row) =>
    Object.fromEntries(meta.primaryKeys.map((key) => [key, row[meta.properties[key]!.fieldNames[0]!]]));
  const selectByKey = async (meta: EntityMetadata, row: Row) => {
    const keys = meta.primaryKeys.map((key) => meta.properties[key]!.fieldNames[0]!);
    const [found] = await sql(
      `select * from "${IDENTITY_SCHEMA}"."${meta.tableName}" where ${keys.map((key) => `"${key}" = ?`).join(' and ')}`,
      keys.map((key) => row[key]),
    );
    return found;
  };
  /** A raw column value as the entity maps it (raw results keep int8 and timestamptz as strings). */
  const asMapped = (meta: EntityMetadata, name: string, value: unknown) => {
    const prop = meta.properties[name]!;
    if (value === null) return value;
    if (prop.customType instanceof BigIntType) return Number(value);
    if (prop.runtimeType === 'Date') return new Date(String(value));
    return value;
  };

  it('registers one entity per table, all in schema tessera_identity', () => {
    const tables = identityEntities.map((schema: EntitySchema) => `${schema.meta.schema}.${schema.meta.tableName}`);
    expect(tables.sort()).toEqual(IDENTITY_TABLES.map((table) => `${IDENTITY_SCHEMA}.${table}`).sort());
  });

  it.each(IDENTITY_TABLES.map((table) => [table]))(
    'reads a %s row through its entity and writes it back unchanged',
    async (table: IdentityTable) => {
      const meta = metadataOf(table);
      const inserted = await rows.any(table);
      const stored = (await selectByKey(meta, inserted))!;

      const entity = (await db.orm.em.fork().findOneOrFail(meta.class, primaryKeyOf(meta, stored))) as Row;
      const props = columnProps(meta);
      expect(props.map((prop) => prop.fieldNames[0]).sort()).toEqual(Object.keys(stored).sort());
      for (const prop of props) {
        expect([prop.name, entity[prop.name]]).toEqual([
          prop.name,
          asMapped(meta, prop.name, stored[prop.fieldNames[0]!]),
        ]);
      }

      await sql(
        `delete from "${IDENTITY_SCHEMA}"."${table}" where ${meta.primaryKeys
          .map((key) => `"${meta.properties[key]!.fieldNames[0]}" = ?`)
          .join(' and ')}`,
        meta.primaryKeys.map((key) => stored[meta.properties[key]!.fieldNames[0]!]),
      );
      await db.orm.em.fork().insert(meta.class, { ...entity });
      expect(await selectByKey(meta, stored)).toEqual(stored);
    },
  );

  it('maps a passkey as the store needs it: COSE key bytes, uint32 counter, flags and smart-card transport', async () => {
    const user = await rows.users();
    const em = db.orm.em.fork();
    const credential = em.create(IdentityCredentialSchema, {
      id: '01965d2c-0000-7000-8000-00000000c0de',
      userId: String(user.id),
      webAuthnId: 'AQIDBAUGBwgJCgsMDQ4PEA',
      name: 'Security key',
      publicKey: Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26]),
      signCount: 4294967295,
      backupEligible: false,
      backedUp: false,
      transports: ['usb', 'smart-card'],
      state: 'active',
      createdAt: rows.now,
      updatedAt: rows.now,
      lastUsedAt: null,
      revokedAt: null,
      version: 0,
    });
    await em.flush();
    const [stored] = await sql(
      `select public_key, sign_count::text as sign_count, transports, version from tessera_identity.credentials where id = ?`,
      [credential.id],
    );
    expect(stored).toEqual({
      public_key: Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26]),
      sign_count: '4294967295',
      transports: ['usb', 'smart-card'],
      version: 0,
    });
    const reloaded = await db.orm.em
      .fork()
      .findOneOrFail(IdentityCredentialSchema, { webAuthnId: 'AQIDBAUGBwgJCgsMDQ4PEA' });
    expect(reloaded).toMatchObject({ userId: user.id, signCount: 4294967295, transports: ['usb', 'smart-card'] });
  });
});
