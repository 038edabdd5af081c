import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createTestDatabase, openDatabase, type OpenDatabase, type TestDatabase } from '@tessera/database';
import {
  parseScimGroupFilter,
  parseScimUserFilter,
  SCIM_FILTER_MAX_LENGTH,
  type ScimUserFilter,
} from '@tessera/identity';
import { ScimError } from '../../../libs/identity/src/scim/scim.errors.js';
import { identityEntities } from '../../../libs/identity-mikro-orm/src/entities/identity.entities.js';
import {
  scimGroupFilterSql,
  scimUserFilterSql,
} from '../../../libs/identity-mikro-orm/src/store/identity-scim-filter.sql.js';
import { evaluate, TEXT_COLUMNS, userArbitrary, type ModelUser } from './scim-filter.model.js';
import { Choices, filterArbitrary, printFilter } from './scim-filter.printer.js';

type Row = Record<string, unknown>;

const ORGANIZATION = '0190f1e2-0000-7000-8000-000000000001';
const PROVIDER = `okta:${ORGANIZATION}`;

/**
 * The two SCIM user tables as DESIGN-15 describes them, created directly (no identity migration),
 * so this file tests the filter translator alone.
 */
const DDL = [
  'create schema tessera_identity',
  `create table tessera_identity.scim_users (
    id uuid primary key,
    organization_id uuid not null,
    provider text not null,
    user_id uuid not null,
    user_name text not null check (char_length(user_name) between 1 and 1024),
    ${TEXT_COLUMNS.filter(([, column]) => column !== 'user_name')
      .map(([, column]) => `${column} text null check (char_length(${column}) between 1 and 1024)`)
      .join(',\n    ')},
    active boolean not null,
    state text not null check (state in ('active', 'deleted')),
    created_at timestamptz not null,
    updated_at timestamptz not null,
    version integer not null check (version >= 1)
  )`,
  `create table tessera_identity.scim_user_emails (
    scim_user_id uuid not null references tessera_identity.scim_users (id) on delete cascade,
    position integer not null check (position between 0 and 19),
    organization_id uuid not null,
    provider text not null,
    value text not null check (char_length(value) between 3 and 320),
    type text null check (char_length(type) between 1 and 64),
    is_primary boolean not null,
    primary key (scim_user_id, position)
  )`,
  `create index scim_users_user_name_lower_index on tessera_identity.scim_users (organization_id, provider, lower(user_name)) where state = 'active'`,
  `create index scim_users_user_name_pattern_index on tessera_identity.scim_users (organization_id, provider, lower(user_name) text_pattern_ops) where state = 'active'`,
  `create table tessera_identity.scim_groups (
    id uuid primary key,
    organization_id uuid not null,
    provider text not null,
    external_id text null,
    display_name text not null,
    state text not null,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    version integer not null default 1
  )`,
  `create table tessera_identity.scim_group_members (
    group_id uuid not null references tessera_identity.scim_groups (id),
    scim_user_id uuid not null references tessera_identity.scim_users (id),
    organization_id uuid not null,
    provider text not null,
    added_at timestamptz not null,
    primary key (group_id, scim_user_id)
  )`,
];

describe(`SCIM filters on ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  let testDb: TestDatabase;
  let db: OpenDatabase;
  const sql = (query: string, params: readonly unknown[] = []) =>
    db.orm.em
      .fork()
      .getConnection()
      .execute<Row[]>(query, [...params]);

  async function insertUsers(users: readonly ModelUser[]): Promise<void> {
    const columns = ['id', 'organization_id', 'provider', 'user_id', ...TEXT_COLUMNS.map(([, c]) => c)];
    const rest = ['active', 'state', 'created_at', 'updated_at', 'version'];
    const tuple = `(${[...columns, ...rest].map(() => '?').join(', ')})`;
    await sql(
      `insert into tessera_identity.scim_users (${[...columns, ...rest].join(', ')}) values ${users.map(() => tuple).join(', ')}`,
      users.flatMap((user) => [
        user.id,
        ORGANIZATION,
        PROVIDER,
        user.id,
        ...TEXT_COLUMNS.map(([attribute]) => user.single[attribute]),
        user.single['active'],
        'active',
        user.single['meta.created'],
        user.single['meta.lastModified'],
        1,
      ]),
    );
    const emails = users.flatMap((user) => user.emails.map((email, position) => ({ user, email, position })));
    if (emails.length === 0) return;
    await sql(
      `insert into tessera_identity.scim_user_emails (scim_user_id, position, organization_id, provider, value, type, is_primary) values ${emails.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      emails.flatMap(({ user, email, position }) => [
        user.id,
        position,
        ORGANIZATION,
        PROVIDER,
        email.value,
        email.type,
        email.primary,
      ]),
    );
  }

  /** Ids the translated filter selects, sorted. */
  async function selectIds(filter: ScimUserFilter): Promise<string[]> {
    const where = scimUserFilterSql(filter, 'u');
    const rows = await sql(
      `select u.id from tessera_identity.scim_users u where u.organization_id = ? and u.provider = ? and u.state = 'active' and ${where.sql} order by u.id`,
      [ORGANIZATION, PROVIDER, ...where.params],
    );
    return rows.map((row) => String(row['id']));
  }

  const expectedIds = (users: readonly ModelUser[], filter: ScimUserFilter) =>
    users
      .filter((user) => evaluate(filter, user))
      .map((user) => user.id)
      .sort();

  let users: ModelUser[];

  // Booting on embedded PGlite next to other suites can take longer than the 30 s default.
  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, entities: [...identityEntities], migrate: 'manual' });
    for (const statement of DDL) await sql(statement);
    const sampled = fc.sample(userArbitrary, { numRuns: 60, seed: 15 });
    users = [...new Map(sampled.map((user) => [user.id, user])).values()];
    await insertUsers(users);
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await testDb?.close();
  });

  it('selects exactly the users the model selects for random filters printed with random spacing and case', async () => {
    const pools = {
      texts: users.flatMap((user) => [
        ...Object.values(user.single).filter((value): value is string => typeof value === 'string'),
        ...user.emails.flatMap((email) => [
          email.value,
          Array.from(email.value).slice(1, 3).join(''),
          email.type ?? 'work',
        ]),
      ]),
      dates: users.flatMap((user) => [user.single['meta.created'] as Date, user.single['meta.lastModified'] as Date]),
      ids: users.map((user) => user.id),
    };
    let matchedSome = 0;
    await fc.assert(
      fc.asyncProperty(filterArbitrary(pools), fc.integer(), async (filter, seed) => {
        const text = printFilter(filter, new Choices(seed));
        if (text.length > SCIM_FILTER_MAX_LENGTH) {
          expect(() => parseScimUserFilter(text)).toThrow(ScimError);
          return;
        }
        const parsed = parseScimUserFilter(text);
        expect(parsed).toEqual(filter);
        const expected = expectedIds(users, filter);
        if (expected.length > 0 && expected.length < users.length) matchedSome += 1;
        expect(await selectIds(parsed)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
    // The generator is not degenerate: many filters select some but not all users.
    expect(matchedSome).toBeGreaterThan(40);
  });

  it('looks userName up through the lower(user_name) indexes (eq, and sw by the text_pattern_ops one)', async () => {
    const em = db.orm.em.fork();
    await em.begin();
    try {
      const explain = async (text: string) => {
        const where = scimUserFilterSql(parseScimUserFilter(text), 'u');
        const plan = await em.execute<Row[]>(
          `explain select u.id from tessera_identity.scim_users u where u.organization_id = ? and u.provider = ? and u.state = 'active' and ${where.sql}`,
          [ORGANIZATION, PROVIDER, ...where.params],
        );
        return plan.map((row) => String(row['QUERY PLAN'])).join('\n');
      };
      await em.execute('set local enable_seqscan = off');
      const equality = await explain('userName eq "BJensen"');
      expect(equality).not.toContain('Seq Scan');
      expect(equality).toMatch(/Index Cond: .*\(lower\(user_name\) = 'bjensen'::text\)/);
      // Only the pattern index left (rolled back below): a prefix search must be an index range.
      await em.execute('drop index tessera_identity.scim_users_user_name_lower_index');
      const prefix = await explain('USERNAME SW "Bj%"');
      expect(prefix).not.toContain('Seq Scan');
      expect(prefix).toMatch(/Index Cond: .*\(lower\(user_name\) ~>=~ 'bj%'::text\)/);
    } finally {
      await em.rollback();
    }
  });

  it('matches groups by display name and by member', async () => {
    const [alice, bob] = users;
    const groups = [
      { id: '0190f1e2-0000-7000-8000-000000000201', name: 'Admins', members: [alice!.id, bob!.id] },
      { id: '0190f1e2-0000-7000-8000-000000000202', name: 'ad_mins%', members: [bob!.id] },
      { id: '0190f1e2-0000-7000-8000-000000000203', name: 'Empty', members: [] },
    ];
    const now = new Date('2024-01-01T00:00:00Z');
    for (const group of groups) {
      await sql(
        "insert into tessera_identity.scim_groups (id, organization_id, provider, display_name, state, created_at, updated_at) values (?, ?, ?, ?, 'active', ?, ?)",
        [group.id, ORGANIZATION, PROVIDER, group.name, now, now],
      );
      for (const member of group.members) {
        await sql(
          'insert into tessera_identity.scim_group_members (group_id, scim_user_id, organization_id, provider, added_at) values (?, ?, ?, ?, ?)',
          [group.id, member, ORGANIZATION, PROVIDER, now],
        );
      }
    }
    const names = async (text: string) => {
      const where = scimGroupFilterSql(parseScimGroupFilter(text), 'g');
      const rows = await sql(
        `select g.display_name from tessera_identity.scim_groups g where g.organization_id = ? and ${where.sql} order by g.id`,
        [ORGANIZATION, ...where.params],
      );
      return rows.map((row) => row['display_name']);
    };
    expect(await names('displayName eq "ADMINS"')).toEqual(['Admins']);
    expect(await names('displayName sw "ad_"')).toEqual(['ad_mins%']);
    expect(await names('displayName co "%"')).toEqual(['ad_mins%']);
    expect(await names(`members eq "${bob!.id.toUpperCase()}"`)).toEqual(['Admins', 'ad_mins%']);
    expect(await names(`members[value eq "${alice!.id}"]`)).toEqual(['Admins']);
    expect(await names(`members ne "${alice!.id}"`)).toEqual(['Admins', 'ad_mins%', 'Empty']);
    expect(await names(`not (members eq "${alice!.id}")`)).toEqual(['ad_mins%', 'Empty']);
    expect(await names('members pr')).toEqual(['Admins', 'ad_mins%']);
    expect(await names('not (members pr)')).toEqual(['Empty']);
    expect(await names('members eq "not-an-id"')).toEqual([]);
  });

  it('treats injection-looking values as data', async () => {
    const hostile: ModelUser[] = [
      `x' or '1'='1`,
      `a'); drop table tessera_identity.scim_users; --`,
      '100%_sure\\',
      'under_score',
      '$1 ? ?? :name',
      'Ünïcødé 漢字 😀',
    ].map((userName, index) => ({
      id: `0190f1e2-0000-7000-8000-0000000001${String(index).padStart(2, '0')}`,
      single: {
        ...Object.fromEntries(TEXT_COLUMNS.map(([attribute]) => [attribute, null])),
        userName,
        active: true,
        'meta.created': new Date('2020-01-01T00:00:00Z'),
        'meta.lastModified': new Date('2020-01-01T00:00:00Z'),
      },
      emails: [{ value: `${userName}@example.com`, type: 'work', primary: true }],
    }));
    await insertUsers(hostile);
    const everyone = [...users, ...hostile];
    const filters = [
      `userName eq "x' or '1'='1"`,
      `userName eq "a'); drop table tessera_identity.scim_users; --"`,
      'userName co "%"',
      'userName sw "100%_"',
      'userName co "_"',
      'userName ew "\\\\"',
      'userName co "\\\\"',
      'userName eq "$1 ? ?? :name"',
      'userName co "?"',
      'emails[type eq "work"].value sw "x\' or"',
      'userName eq "\\u00dcn\\u00efc\\u00f8d\\u00e9 \\u6f22\\u5b57 \\ud83d\\ude00"',
      'userName co "\' or 1=1 --"',
    ];
    for (const text of filters) {
      const filter = parseScimUserFilter(text);
      const expected = expectedIds(everyone, filter);
      expect({ text, ids: await selectIds(filter) }).toEqual({ text, ids: expected });
    }
    expect(await selectIds(parseScimUserFilter('userName co "%"'))).toEqual(
      expectedIds(everyone, parseScimUserFilter('userName co "%"')),
    );
    expect(expectedIds(everyone, parseScimUserFilter('userName sw "100%_"'))).toEqual([hostile[2]!.id]);
    expect(expectedIds(everyone, parseScimUserFilter(filters[0]!))).toEqual([hostile[0]!.id]);
    const [{ n }] = (await sql('select count(*)::int as n from tessera_identity.scim_users')) as [{ n: number }];
    expect(n).toBe(everyone.length);
  });
});
