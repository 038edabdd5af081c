import {
  decideDevicePoll,
  type AuditEventInput,
  type DeviceGrantRecord,
  type DevicePollOutcome,
  type IdentityDeviceCommands,
  type StoredDigest,
} from '@tessera/identity';
import {
  abort,
  CommittedRejection,
  insertRow,
  isUuid,
  table,
  type Sql,
  type StoreGateway,
} from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { textArrayLiteral } from './identity-row.columns.js';
import { insertAudit } from './identity-session.commands.js';
import { scopesWithin } from './identity-service.rows.js';
import { GRANT_BY_DEVICE_CODE, GRANT_BY_USER_CODE } from './identity-device.reads.js';
import {
  deviceGrantColumns,
  deviceGrantFromRow,
  deviceTokenFamilyFromRow,
  digestParams,
  sortedScopes,
} from './identity-device.rows.js';
import { insertTokenPair, lockFamilyStanding } from './identity-device-token.commands.js';

type Commands = IdentityDeviceCommands;

/** The grant whose code digest matches, locked `for update`, or `not_found`. */
/**
 * A decision's audit event about the locked grant: its `target` (the caller knows only the code) and,
 * for an authorized grant, its organization, where the caller left them empty.
 */
function aboutGrant(audit: AuditEventInput, grant: DeviceGrantRecord): AuditEventInput {
  return {
    ...audit,
    target: audit.target ?? { type: 'device_grant', id: grant.id },
    organizationId: audit.organizationId ?? grant.authorization?.organizationId ?? null,
  };
}

async function lockGrant(sql: Sql, by: 'device' | 'user', digest: StoredDigest): Promise<DeviceGrantRecord> {
  if (digest.keyVersion === null) abort('not_found');
  const [row] = await sql(
    `select ${allColumns('device_grants')} from ${table('device_grants')}
      where ${by === 'device' ? GRANT_BY_DEVICE_CODE : GRANT_BY_USER_CODE} for update`,
    digestParams(digest),
  );
  return deviceGrantFromRow(row ?? abort('not_found'));
}

/** `set …` of a grant update (`?` values in `params`), always advancing `version` by one. */
async function updateGrant(
  sql: Sql,
  grant: DeviceGrantRecord,
  set: string,
  params: readonly unknown[],
  at: Date,
): Promise<DeviceGrantRecord> {
  const [row] = await sql(
    `update ${table('device_grants')} set ${set}, updated_at = ?, version = version + 1
      where id = ? and version = ?
    returning ${allColumns('device_grants')}`,
    [...params, at, grant.id, grant.version],
  );
  return deviceGrantFromRow(row ?? abort('version_conflict'));
}

const expired = (grant: DeviceGrantRecord, at: Date) => at.getTime() >= grant.expiresAt.getTime();

/**
 * Approval and denial: a `pending`, unexpired grant that `sessionId` inspected at or after
 * `inspectedSince` (the confirmation screen cannot be skipped by posting straight to approve).
 */
function requireInspectedPending(grant: DeviceGrantRecord, sessionId: string, inspectedSince: Date, at: Date): void {
  if (grant.state !== 'pending') abort('invalid_transition');
  if (expired(grant, at)) abort('challenge_expired');
  const inspection = grant.inspection;
  if (
    inspection === null ||
    inspection.sessionId !== sessionId ||
    inspection.inspectedAt.getTime() < inspectedSince.getTime() ||
    inspection.inspectedAt.getTime() > at.getTime()
  )
    abort('invalid_transition');
}

/**
 * Device grant commands of identity-model §5.5 / §9.2: one READ COMMITTED transaction each, the
 * grant row locked `for update` (found by its code digest) so every transition is a
 * compare-and-set with one winner; inserts serialize same-id races on an advisory lock.
 *
 * @example
 * const poll = await new IdentityDeviceGrantCommandHandlers(gateway).recordDeviceGrantPoll({ deviceCodeDigest, clientId, at, audits });
 */
export class IdentityDeviceGrantCommandHandlers implements Pick<
  Commands,
  | 'createDeviceGrant'
  | 'recordDeviceGrantPoll'
  | 'inspectDeviceGrant'
  | 'authorizeDeviceGrant'
  | 'denyDeviceGrant'
  | 'cancelDeviceGrant'
  | 'claimDeviceGrant'
> {
  constructor(private readonly gateway: StoreGateway) {}

  createDeviceGrant(input: Parameters<Commands['createDeviceGrant']>[0]): ReturnType<Commands['createDeviceGrant']> {
    const { grant, at, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(grant.id)) abort('invalid_transition');
      // A same-id race: the loser waits here, then finds the row (retryable conflict, identity-model §9.3).
      await sql('select pg_advisory_xact_lock(hashtextextended(?::text, 0))', [`tessera.device_grant:${grant.id}`]);
      const [existing] = await sql(`select id from ${table('device_grants')} where id = ?`, [grant.id]);
      if (existing !== undefined) abort('version_conflict');
      const inserted = deviceGrantFromRow(await insertRow(sql, 'device_grants', deviceGrantColumns(grant, at)));
      for (const [kind, digest] of [
        ['device', grant.deviceCodeDigest],
        ['user', grant.userCodeDigest],
      ] as const) {
        const [algorithm, encoded, keyVersion] = digestParams(digest);
        await insertRow(sql, 'device_grant_digest_reservations', {
          digest_algorithm: algorithm,
          digest_encoded: encoded,
          digest_key_version: keyVersion,
          grant_id: grant.id,
          kind,
          created_at: at,
        });
      }
      await insertAudit(sql, audit);
      return inserted;
    });
  }

  recordDeviceGrantPoll(
    input: Parameters<Commands['recordDeviceGrantPoll']>[0],
  ): ReturnType<Commands['recordDeviceGrantPoll']> {
    const { deviceCodeDigest, clientId, at, audits } = input;
    return this.gateway.command(async (sql) => {
      const grant = await lockGrant(sql, 'device', deviceCodeDigest);
      const answer = (outcome: DevicePollOutcome, current = grant) => ({ outcome, grant: current });
      const written = async (outcome: DevicePollOutcome, current: DeviceGrantRecord) => {
        for (const audit of audits({ outcome, grant: current })) await insertAudit(sql, audit);
        return answer(outcome, current);
      };
      // The one poll decision of the device flow (`decideDevicePoll`), taken under the row lock.
      const decision = decideDevicePoll(grant, clientId, at);
      switch (decision.action) {
        case 'refuse':
          return answer(decision.error);
        case 'exchange':
          return answer('authorized');
        case 'expire':
          return written('expired_token', await updateGrant(sql, grant, "state = 'expired'", [], at));
        case 'record_poll': {
          const polled = await updateGrant(
            sql,
            grant,
            'poll_count = poll_count + 1, last_polled_at = ?, interval_seconds = ?',
            [decision.lastPolledAt, decision.intervalSeconds],
            at,
          );
          return written(decision.error, polled);
        }
      }
    });
  }

  inspectDeviceGrant(input: Parameters<Commands['inspectDeviceGrant']>[0]): ReturnType<Commands['inspectDeviceGrant']> {
    const { userCodeDigest, sessionId, at } = input;
    return this.gateway.command(async (sql) => {
      const grant = await lockGrant(sql, 'user', userCodeDigest);
      if (grant.state !== 'pending') abort('invalid_transition');
      if (expired(grant, at)) abort('challenge_expired');
      if (!isUuid(sessionId)) abort('invalid_transition');
      return updateGrant(sql, grant, 'inspected_by_session_id = ?, inspected_at = ?', [sessionId, at], at);
    });
  }

  authorizeDeviceGrant(
    input: Parameters<Commands['authorizeDeviceGrant']>[0],
  ): ReturnType<Commands['authorizeDeviceGrant']> {
    const { userCodeDigest, sessionId, inspectedSince, userId, organizationId, approvedCapabilities, at, audit } =
      input;
    return this.gateway.command(async (sql) => {
      const grant = await lockGrant(sql, 'user', userCodeDigest);
      requireInspectedPending(grant, sessionId, inspectedSince, at);
      const approved = sortedScopes(approvedCapabilities);
      if (approved.length === 0 || !scopesWithin(approved, grant.requestedCapabilities)) abort('invalid_transition');
      if (!isUuid(userId) || !isUuid(organizationId)) abort('not_found');
      const [membership] = await sql(
        `select m.id, m.version from ${table('memberships')} m
           join ${table('users')} u on u.id = m.user_id
           join ${table('organizations')} o on o.id = m.organization_id
          where m.organization_id = ? and m.user_id = ?
            and m.state = 'active' and u.state = 'active' and o.state = 'active'
          for share of m`,
        [organizationId, userId],
      );
      if (membership === undefined) abort('not_found');
      const authorized = await updateGrant(
        sql,
        grant,
        `state = 'authorized', user_id = ?, organization_id = ?, membership_id = ?, membership_version = ?,
         authorized_by_user_id = ?, authorized_at = ?, approved_capabilities = ?`,
        [userId, organizationId, membership['id'], membership['version'], userId, at, textArrayLiteral(approved)],
        at,
      );
      await insertAudit(sql, aboutGrant(audit, authorized));
      return authorized;
    });
  }

  denyDeviceGrant(input: Parameters<Commands['denyDeviceGrant']>[0]): ReturnType<Commands['denyDeviceGrant']> {
    const { userCodeDigest, sessionId, inspectedSince, at, audit } = input;
    return this.gateway.command(async (sql) => {
      const grant = await lockGrant(sql, 'user', userCodeDigest);
      requireInspectedPending(grant, sessionId, inspectedSince, at);
      const denied = await updateGrant(sql, grant, "state = 'denied'", [], at);
      await insertAudit(sql, aboutGrant(audit, grant));
      return denied;
    });
  }

  cancelDeviceGrant(input: Parameters<Commands['cancelDeviceGrant']>[0]): ReturnType<Commands['cancelDeviceGrant']> {
    const { deviceCodeDigest, at, audit } = input;
    return this.gateway.command(async (sql) => {
      const grant = await lockGrant(sql, 'device', deviceCodeDigest);
      if ((grant.state !== 'pending' && grant.state !== 'authorized') || expired(grant, at))
        abort('invalid_transition');
      const cancelled = await updateGrant(sql, grant, "state = 'cancelled'", [], at);
      await insertAudit(sql, aboutGrant(audit, grant));
      return cancelled;
    });
  }

  /** The family and tokens are inserted after the grant turns `consumed`: one winner under the grant lock. */
  claimDeviceGrant(input: Parameters<Commands['claimDeviceGrant']>[0]): ReturnType<Commands['claimDeviceGrant']> {
    const { deviceCodeDigest, clientId, familyId, familyExpiresAt, tokens, at, audits } = input;
    return this.gateway.command(async (sql) => {
      const grant = await lockGrant(sql, 'device', deviceCodeDigest);
      const binding = grant.authorization;
      if (grant.clientId !== clientId || grant.state !== 'authorized' || binding === null || expired(grant, at))
        abort('invalid_transition');
      if (familyExpiresAt.getTime() <= at.getTime()) abort('invalid_transition');
      if ((await lockFamilyStanding(sql, binding)) !== 'current') {
        const cancelled = await updateGrant(sql, grant, "state = 'cancelled'", [], at);
        for (const audit of audits({ kind: 'membership_changed', grant: cancelled })) await insertAudit(sql, audit);
        return new CommittedRejection('invalid_transition');
      }
      const consumed = await updateGrant(sql, grant, "state = 'consumed'", [], at);
      const family = deviceTokenFamilyFromRow(
        await insertRow(sql, 'device_token_families', {
          id: familyId,
          device_grant_id: grant.id,
          user_id: binding.userId,
          organization_id: binding.organizationId,
          membership_id: binding.membershipId,
          membership_version: binding.membershipVersion,
          client_id: grant.clientId,
          capabilities: textArrayLiteral(sortedScopes(binding.approvedCapabilities)),
          state: 'active',
          expires_at: familyExpiresAt,
          created_at: at,
          updated_at: at,
          revoked_at: null,
          revoked_reason: null,
          version: 0,
        }),
      );
      const issued = await insertTokenPair(sql, family, tokens, 0, at);
      for (const audit of audits({ kind: 'issued', grant: consumed, family })) await insertAudit(sql, audit);
      return { grant: consumed, family, tokens: issued };
    });
  }
}
