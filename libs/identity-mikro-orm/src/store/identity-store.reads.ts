import type {
  IdentityStoreReads,
  InvitationRecord,
  MembershipRecord,
  OrganizationRecord,
  SessionRecord,
  StoredDigest,
  UserRecord,
} from '@tessera/identity';
import { isUuid, table, type Row, type StoreGateway } from './identity-store.gateway.js';
import {
  MEMBERSHIP_FIELDS,
  ORGANIZATION_FIELDS,
  prefixedFields,
  USER_FIELDS,
  allColumns,
} from './identity-row.fields.js';
import {
  invitationFromRow,
  membershipFromRow,
  organizationFromRow,
  sessionFromRow,
  unprefix,
  userFromRow,
} from './identity-row.mappers.js';

/** The per-request credential read: session and user in one indexed join. */
const SESSION_WITH_USER = `select ${allColumns('sessions', 's')}, ${prefixedFields('u', USER_FIELDS, 'u_')}
  from ${table('sessions')} s join ${table('users')} u on u.id = s.user_id where s.id = ?`;

/**
 * The reads of identity-model §9.1 used so far. Ids that are not UUIDs match nothing (a malformed
 * selector from a cookie is an unknown session, not a database error).
 *
 * @example
 * const reads = new IdentityStoreReadQueries(gateway);
 * const session = await reads.findSession(selector);
 */
export class IdentityStoreReadQueries implements IdentityStoreReads {
  constructor(private readonly gateway: StoreGateway) {}

  findUser(id: string): Promise<UserRecord | null> {
    return this.one('users', 'id = ?', [id], userFromRow, isUuid(id));
  }

  listUsersByIds(ids: readonly string[]): Promise<UserRecord[]> {
    const wanted = [...new Set(ids.filter(isUuid))].slice(0, 1000);
    return this.gateway.read(async (sql) =>
      wanted.length === 0
        ? []
        : (await sql(`select ${allColumns('users')} from ${table('users')} where id = any(?::uuid[])`, [wanted])).map(
            (row) => userFromRow(row),
          ),
    );
  }

  findUserByEmail(email: string): Promise<UserRecord | null> {
    return this.one('users', 'lower(primary_email) = lower(?)', [email], userFromRow);
  }

  findSession(id: string): Promise<SessionRecord | null> {
    return this.one('sessions', 'id = ?', [id], sessionFromRow, isUuid(id));
  }

  findSessionWithUser(id: string): Promise<{ session: SessionRecord; user: UserRecord } | null> {
    if (!isUuid(id)) return this.gateway.read(async () => null);
    return this.gateway.read(async (sql) => {
      const [row] = await sql(SESSION_WITH_USER, [id]);
      return row === undefined ? null : { session: sessionFromRow(row), user: userFromRow(row, 'u_') };
    });
  }

  listSessionsForUser(userId: string): Promise<SessionRecord[]> {
    if (!isUuid(userId)) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) =>
      (
        await sql(
          `select ${allColumns('sessions')} from ${table('sessions')} where user_id = ? order by last_used_at desc, id desc`,
          [userId],
        )
      ).map(sessionFromRow),
    );
  }

  findOrganization(id: string): Promise<OrganizationRecord | null> {
    return this.one('organizations', 'id = ?', [id], organizationFromRow, isUuid(id));
  }

  findOrganizationBySlug(slug: string): Promise<OrganizationRecord | null> {
    return this.one('organizations', 'slug = ?', [slug], organizationFromRow);
  }

  findMembership(id: string): Promise<MembershipRecord | null> {
    return this.one('memberships', 'id = ?', [id], membershipFromRow, isUuid(id));
  }

  findMembershipForUser(organizationId: string, userId: string): Promise<MembershipRecord | null> {
    return this.one(
      'memberships',
      'organization_id = ? and user_id = ?',
      [organizationId, userId],
      membershipFromRow,
      isUuid(organizationId) && isUuid(userId),
    );
  }

  listOrganizationsForUser(
    userId: string,
  ): Promise<{ organization: OrganizationRecord; membership: MembershipRecord }[]> {
    if (!isUuid(userId)) return this.gateway.read(async () => []);
    const columns = [prefixedFields('o', ORGANIZATION_FIELDS, 'o_'), prefixedFields('m', MEMBERSHIP_FIELDS, 'm_')].join(
      ', ',
    );
    return this.gateway.read(async (sql) => {
      const rows = await sql(
        `select ${columns} from ${table('memberships')} m
           join ${table('organizations')} o on o.id = m.organization_id
          where m.user_id = ? and m.state = 'active' and o.state = 'active'
          order by o.id`,
        [userId],
      );
      return rows.map((row) => ({
        organization: organizationFromRow(unprefix(row, 'o_')),
        membership: membershipFromRow(unprefix(row, 'm_')),
      }));
    });
  }

  findInvitation(id: string): Promise<InvitationRecord | null> {
    return this.one('invitations', 'id = ?', [id], invitationFromRow, isUuid(id));
  }

  findInvitationByTokenDigest(digest: StoredDigest): Promise<InvitationRecord | null> {
    return this.one(
      'invitations',
      'token_digest_algorithm = ? and token_digest_encoded = ? and token_digest_key_version = ?',
      [digest.algorithm, digest.encoded, digest.keyVersion],
      invitationFromRow,
      digest.keyVersion !== null,
    );
  }

  isEmpty(): Promise<boolean> {
    return this.gateway.read(async (sql) => {
      const [row] = await sql(
        `select not (exists (select 1 from ${table('users')})
                  or exists (select 1 from ${table('organizations')})
                  or exists (select 1 from ${table('bootstrap_receipts')})) as empty`,
      );
      return row?.['empty'] === true;
    });
  }

  private one<T>(
    name: string,
    where: string,
    params: readonly unknown[],
    map: (row: Row) => T,
    valid = true,
  ): Promise<T | null> {
    return readOne(this.gateway, name, where, params, map, valid);
  }
}

/** The single row of `name` matching `where`, mapped, or `null` (also when the key is not `valid`). */
export function readOne<T>(
  gateway: StoreGateway,
  name: string,
  where: string,
  params: readonly unknown[],
  map: (row: Row) => T,
  valid = true,
): Promise<T | null> {
  return gateway.read(async (sql) => {
    if (!valid) return null;
    const [row] = await sql(`select ${allColumns(name)} from ${table(name)} where ${where}`, params);
    return row === undefined ? null : map(row);
  });
}
