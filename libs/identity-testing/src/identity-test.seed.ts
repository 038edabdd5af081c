import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { MembershipState, NewSession, OrganizationRole, OrganizationState, UserState } from '@tessera/identity';
import { testUuidV7 } from './identity-test.rows.js';

/** A raw row: snake_case column → value. */
export type TestRow = Record<string, unknown>;

const DEFAULT_AT = new Date('2031-05-01T10:00:00.000Z');

/**
 * Seeds `tessera_identity` rows with plain SQL where the port has no command yet (extra
 * organizations, several active sessions, stale epochs) and counts rows to prove that a failed
 * command left nothing behind. Every statement runs on a fresh fork, outside any transaction.
 *
 * @example
 * const rows = new IdentityTestRows(db.orm.em);
 * const userId = await rows.user({ sessionEpoch: 2 });
 * await rows.session(newTestSession({ userId, at }), { userSessionEpoch: 2 });
 */
export class IdentityTestRows {
  constructor(private readonly em: EntityManager) {}

  /** Runs one statement (`?` placeholders) and returns its rows. */
  async sql(query: string, params: readonly unknown[] = []): Promise<TestRow[]> {
    return (await this.em
      .fork()
      .getConnection()
      .execute<TestRow[]>(query, [...params], 'all')) as TestRow[];
  }

  /** `select count(*)` of an identity table under a `where` clause. */
  async count(table: string, where = 'true', params: readonly unknown[] = []): Promise<number> {
    const [row] = await this.sql(`select count(*)::int as n from tessera_identity.${table} where ${where}`, params);
    return Number(row?.['n']);
  }

  /** Inserts `row` into `tessera_identity.<table>`. */
  async insert(table: string, row: TestRow): Promise<void> {
    const columns = Object.keys(row);
    await this.sql(
      `insert into tessera_identity.${table} (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      columns.map((c) => row[c]),
    );
  }

  /** A user (active, epoch 0, a unique email unless given); returns its id. */
  async user(
    over: { email?: string | null; sessionEpoch?: number; state?: UserState; at?: Date } = {},
  ): Promise<string> {
    const id = testUuidV7(over.at);
    const at = over.at ?? DEFAULT_AT;
    await this.insert('users', {
      id,
      primary_email: over.email === undefined ? `seed-${randomBytes(6).toString('hex')}@example.test` : over.email,
      display_name: 'Seeded User',
      state: over.state ?? 'active',
      session_epoch: over.sessionEpoch ?? 0,
      created_at: at,
      updated_at: at,
      version: 0,
    });
    return id;
  }

  /** An organization (active unless told); returns its id. */
  async organization(over: { state?: OrganizationState; at?: Date; id?: string } = {}): Promise<string> {
    const id = over.id ?? testUuidV7(over.at);
    const at = over.at ?? DEFAULT_AT;
    const state = over.state ?? 'active';
    await this.insert('organizations', {
      id,
      name: 'Seeded Organization',
      slug: `org-${randomBytes(5).toString('hex')}`,
      state,
      created_at: at,
      updated_at: at,
      deleted_at: state === 'deleted' ? at : null,
      version: 0,
    });
    return id;
  }

  /** A membership (viewer, active unless told); returns its id. */
  async membership(
    organizationId: string,
    userId: string,
    over: { role?: OrganizationRole; state?: MembershipState; at?: Date } = {},
  ): Promise<string> {
    const id = testUuidV7(over.at);
    const at = over.at ?? DEFAULT_AT;
    const state = over.state ?? 'active';
    await this.insert('memberships', {
      id,
      organization_id: organizationId,
      user_id: userId,
      role: over.role ?? 'viewer',
      state,
      created_at: at,
      updated_at: at,
      removed_at: state === 'removed' ? at : null,
      version: 0,
    });
    return id;
  }

  /** Inserts `session` as stored by an issue at `authenticatedAt` (active at epoch 0 unless told). */
  async session(
    session: NewSession,
    over: { userSessionEpoch?: number; lastUsedAt?: Date; state?: 'active' | 'revoked' } = {},
  ): Promise<void> {
    const at = session.authenticatedAt;
    const revoked = over.state === 'revoked';
    await this.insert('sessions', {
      id: session.id,
      family_id: session.familyId,
      user_id: session.userId,
      token_digest_algorithm: session.tokenDigest.algorithm,
      token_digest_encoded: session.tokenDigest.encoded,
      token_digest_key_version: session.tokenDigest.keyVersion,
      csrf_digest_algorithm: session.csrfDigest.algorithm,
      csrf_digest_encoded: session.csrfDigest.encoded,
      csrf_digest_key_version: session.csrfDigest.keyVersion,
      state: over.state ?? 'active',
      assurance: session.assurance,
      authentication_method: session.authenticationMethod,
      federation_organization_id: session.federation?.organizationId ?? null,
      federation_provider_key: session.federation?.providerKey ?? null,
      federation_provider_session_epoch: session.federation?.providerSessionEpoch ?? null,
      external_identity_id: session.federation?.externalIdentityId ?? null,
      user_session_epoch: over.userSessionEpoch ?? 0,
      rotation_counter: session.rotationCounter,
      label: session.label,
      platform: session.platform,
      authenticated_at: at,
      last_used_at: over.lastUsedAt ?? at,
      idle_expires_at: session.idleExpiresAt,
      absolute_expires_at: session.absoluteExpiresAt,
      revoked_at: revoked ? at : null,
      revoked_reason: revoked ? 'logout' : null,
      created_at: at,
      updated_at: at,
      version: 0,
    });
  }
}
