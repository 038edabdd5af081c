/** Every constraint of `tessera_identity` fires on its violating row; every table accepts its fixture row. */
import { describe, expect, it } from '@jest/globals';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
} from '../../../libs/identity-mikro-orm/src/schema/identity-schema.values.js';
import { CONSTRAINT_CASES } from './identity-constraint-cases.js';
import { CONSTRAINTS_SUITE, useConstraintsDatabase } from './identity-constraints.support.js';
import { failure, IDENTITY_TABLES, inRollback } from './identity-rows.fixture.js';

/** Runs on embedded PGlite, or on a fresh database of the DATABASE_URL server when it is set. */
describe(CONSTRAINTS_SUITE, () => {
  const db = useConstraintsDatabase();
  const { sql } = db;

  describe('each constraint fires on a violating row', () => {
    it.each(CONSTRAINT_CASES.map((c) => [c.constraint, c] as const))('rejects a row violating %s', async (_, c) => {
      const error = await inRollback(db.orm, async (rows) => {
        const arranged = c.arrange ? await c.arrange(rows) : {};
        return failure(() => c.violate(rows, arranged));
      });
      expect(error).toMatchObject({ code: c.code, constraint: c.constraint });
    });

    it('has a case for every constraint and unique index of the schema, and for nothing else', async () => {
      const catalog = await sql(
        `select con.conname as name from pg_constraint con
           join pg_class rel on rel.oid = con.conrelid
          where rel.relnamespace = ?::regnamespace and rel.relname <> ? and con.contype in ('c', 'f', 'p', 'u', 'x')
         union
         select idx.relname from pg_index i
           join pg_class idx on idx.oid = i.indexrelid
          where idx.relnamespace = ?::regnamespace and i.indisunique
            and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.contype in ('p', 'u'))`,
        [IDENTITY_SCHEMA, IDENTITY_MIGRATIONS_TABLE, IDENTITY_SCHEMA],
      );
      const names = CONSTRAINT_CASES.map((c) => c.constraint);
      expect(new Set(names).size).toBe(names.length);
      expect([...names].sort()).toEqual(catalog.map((row) => String(row.name)).sort());
    });
  });

  describe('valid rows are accepted', () => {
    it.each(IDENTITY_TABLES.map((table) => [table]))('accepts the fixture row of %s', async (table) => {
      const count = await inRollback(db.orm, async (rows, run) => {
        await rows.any(table);
        const [row] = await run(`select count(*)::int as n from "tessera_identity"."${table}"`);
        return row!.n;
      });
      expect(count).toBeGreaterThanOrEqual(1);
    });

    it('defaults version to 0 on mutable rows, 1 on SCIM groups, and the singletons to id true', async () => {
      const rows = await inRollback(db.orm, async (rows, run) => {
        const user = await rows.users();
        const group = await rows.scimGroups();
        await run(
          `insert into tessera_identity.environment (environment, namespace, created_at) values ('test', 'tessera_test', now())`,
        );
        return run(
          `select (select version from tessera_identity.users where id = ?) as user_version,
                  (select version from tessera_identity.scim_groups where id = ?) as group_version,
                  (select id from tessera_identity.environment) as environment_id`,
          [user.id, group.id],
        );
      });
      expect(rows[0]).toEqual({ user_version: 0, group_version: 1, environment_id: true });
    });
  });
});
