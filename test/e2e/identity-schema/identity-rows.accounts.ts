/** Row builders of the installation and account tables: environment, users, organizations, invitations. */
import { randomBytes } from 'node:crypto';
import { b64, DAY, storageKey, textArrayLiteral, token, uuidV7, type Row, type Sql } from './identity-rows.values.js';

/**
 * Raw-SQL inserts into `tessera_identity` and the builders of its account tables; the other table
 * families extend it (see `IdentityRows` in identity-rows.fixture.ts).
 */
export class AccountRows {
  constructor(
    private readonly sql: Sql,
    readonly now: Date = new Date('2031-05-01T10:00:00.000Z'),
  ) {}

  /** `now` shifted by `ms`. */
  at(ms: number): Date {
    return new Date(this.now.getTime() + ms);
  }

  /** Inserts `row` into `tessera_identity.<table>` and returns it. */
  async insert(table: string, row: Row): Promise<Row> {
    const columns = Object.keys(row);
    // knex expands an array binding into a value list, so arrays travel as text[] literals.
    const placeholders = columns.map((c) => (Array.isArray(row[c]) ? '?::text[]' : '?'));
    await this.sql(
      `insert into "tessera_identity"."${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${placeholders.join(', ')})`,
      columns.map((c) => (Array.isArray(row[c]) ? textArrayLiteral(row[c] as (string | null)[]) : row[c])),
    );
    return row;
  }

  environment(over: Row = {}): Promise<Row> {
    return this.insert('environment', {
      id: true,
      environment: 'test',
      namespace: 'tessera_test',
      created_at: this.now,
      ...over,
    });
  }

  async bootstrapReceipts(over: Row = {}): Promise<Row> {
    return this.insert('bootstrap_receipts', {
      id: true,
      digest_algorithm: 'sha256',
      digest_encoded: b64(),
      user_id: over.user_id ?? (await this.users()).id,
      organization_id: over.organization_id ?? (await this.organizations()).id,
      consumed_at: this.now,
      ...over,
    });
  }

  schemaMigrations(over: Row = {}): Promise<Row> {
    return this.insert('schema_migrations', {
      module: 'identity',
      version: `tessera_identity_${token()}`,
      checksum: randomBytes(32).toString('hex'),
      applied_at: this.now,
      ...over,
    });
  }

  users(over: Row = {}): Promise<Row> {
    return this.insert('users', {
      id: uuidV7(),
      primary_email: null,
      display_name: 'Ada Lovelace',
      state: 'active',
      session_epoch: 0,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  organizations(over: Row = {}): Promise<Row> {
    return this.insert('organizations', {
      id: uuidV7(),
      name: 'Acme',
      slug: `acme-${token()}`,
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      deleted_at: null,
      ...over,
    });
  }

  async memberships(over: Row = {}): Promise<Row> {
    return this.insert('memberships', {
      id: uuidV7(),
      organization_id: over.organization_id ?? (await this.organizations()).id,
      user_id: over.user_id ?? (await this.users()).id,
      role: 'viewer',
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      removed_at: null,
      ...over,
    });
  }

  async externalIdentities(over: Row = {}): Promise<Row> {
    return this.insert('external_identities', {
      id: uuidV7(),
      user_id: over.user_id ?? (await this.users()).id,
      organization_id: over.organization_id ?? (await this.organizations()).id,
      provider: storageKey(),
      subject: `subject-${token()}`,
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  async invitations(over: Row = {}): Promise<Row> {
    return this.insert('invitations', {
      id: uuidV7(),
      organization_id: over.organization_id ?? (await this.organizations()).id,
      email: `invitee-${token()}@example.test`,
      role: 'viewer',
      state: 'pending',
      token_digest_algorithm: 'hmac-sha256',
      token_digest_encoded: b64(),
      token_digest_key_version: '1',
      invited_by_user_id: null,
      accepted_by_user_id: null,
      accepted_at: null,
      revoked_at: null,
      expires_at: this.at(7 * DAY),
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }
}
