import type {
  AuditActor,
  AuditEventPage,
  AuditEventRecord,
  AuditPurgeResult,
  AuditRequest,
  IdentityInvitationAuditReads,
  InvitationRecord,
} from '@tessera/identity';
import { isUuid, table, type Row, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { instant, invitationFromRow, optionalText, text } from './identity-row.mappers.js';

/**
 * Newest first by the descending keyset: served by `audit_events_organization_keyset_index`
 * (organization_id, occurred_at desc, id desc) as one index range scan at any depth.
 */
const FIRST_PAGE = `select ${allColumns('audit_events')} from ${table('audit_events')}
  where organization_id = ?
  order by occurred_at desc, id desc limit ?`;
const NEXT_PAGE = `select ${allColumns('audit_events')} from ${table('audit_events')}
  where organization_id = ? and (occurred_at, id) < (?::timestamptz, ?::uuid)
  order by occurred_at desc, id desc limit ?`;

/**
 * Oldest first over `audit_events_occurred_at_id_index`: one more candidate than the batch tells
 * whether anything remains; a concurrent purge that deleted a row first simply skips it.
 */
// The rows to delete are locked oldest first and `skip locked`: concurrent purges take disjoint
// batches instead of deadlocking on each other's rows, and no event is deleted twice.
const PURGE = `with candidates as (
    select id from ${table('audit_events')}
     where occurred_at < ?::timestamptz order by occurred_at, id limit ?
  ), doomed as (
    select id from ${table('audit_events')}
     where occurred_at < ?::timestamptz order by occurred_at, id limit ? for update skip locked
  ), deleted as (
    delete from ${table('audit_events')} a using doomed d where a.id = d.id returning a.id
  )
  select (select count(*) from deleted)::int as deleted_count, (select count(*) from candidates)::int as candidates`;

/**
 * The invitation and audit reads of identity-model §9.1 (the export's, `IdentityAuditExportReads`), and the bounded retention delete of §8.4
 * (one autocommitted statement). Ids that are not UUIDs match nothing.
 *
 * @example
 * const reads = new IdentityInvitationAuditReadQueries(gateway);
 * const page = await reads.listAuditEventsForOrganization(organizationId, { limit: 50 });
 */
export class IdentityInvitationAuditReadQueries implements Omit<
  IdentityInvitationAuditReads,
  'exportAuditEventLines' | 'findAuditEventPositions'
> {
  constructor(private readonly gateway: StoreGateway) {}

  listInvitationsForOrganization(organizationId: string): Promise<InvitationRecord[]> {
    if (!isUuid(organizationId)) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) =>
      (
        await sql(
          `select ${allColumns('invitations')} from ${table('invitations')} where organization_id = ? order by id`,
          [organizationId],
        )
      ).map(invitationFromRow),
    );
  }

  listAuditEventsForOrganization(
    organizationId: string,
    page: Parameters<IdentityInvitationAuditReads['listAuditEventsForOrganization']>[1],
  ): Promise<AuditEventPage> {
    const { limit, after } = page;
    if (!Number.isSafeInteger(limit) || limit < 1)
      return Promise.reject(new RangeError('audit page limit must be positive'));
    if (!isUuid(organizationId) || (after !== undefined && !isUuid(after.id))) {
      return this.gateway.read(async () => ({ events: [], hasMore: false }));
    }
    return this.gateway.read(async (sql) => {
      // One row beyond the page says whether another page exists.
      const rows =
        after === undefined
          ? await sql(FIRST_PAGE, [organizationId, limit + 1])
          : await sql(NEXT_PAGE, [organizationId, after.occurredAt.toISOString(), after.id, limit + 1]);
      return { events: rows.slice(0, limit).map(auditEventFromRow), hasMore: rows.length > limit };
    });
  }

  purgeAuditEvents(input: Parameters<IdentityInvitationAuditReads['purgeAuditEvents']>[0]): Promise<AuditPurgeResult> {
    const { before, batchSize } = input;
    if (!Number.isSafeInteger(batchSize) || batchSize < 1)
      return Promise.reject(new RangeError('purge batch size must be positive'));
    return this.gateway.read(async (sql) => {
      const cutoff = before.toISOString();
      const [row] = await sql(PURGE, [cutoff, batchSize + 1, cutoff, batchSize]);
      const deletedCount = Number(row?.['deleted_count'] ?? 0);
      return { deletedCount, hasMore: Number(row?.['candidates'] ?? 0) > batchSize };
    });
  }
}

/** An `audit_events` row → the stored event (identity-model §8.1), pseudonyms included. */
export function auditEventFromRow(row: Row): AuditEventRecord {
  const targetType = optionalText(row, 'target_type');
  return {
    id: text(row, 'id'),
    actor: actorFromRow(row),
    organizationId: optionalText(row, 'organization_id'),
    action: text(row, 'action'),
    target: targetType === null ? null : { type: targetType, id: text(row, 'target_id') },
    outcome: text(row, 'outcome') as AuditEventRecord['outcome'],
    reasonCode: optionalText(row, 'reason_code'),
    request: requestFromRow(row),
    occurredAt: instant(row, 'occurred_at'),
  };
}

function actorFromRow(row: Row): AuditActor {
  switch (text(row, 'actor_type')) {
    case 'user':
      return { type: 'user', userId: text(row, 'actor_user_id') };
    case 'service':
      return { type: 'service', serviceIdentityId: text(row, 'actor_service_identity_id') };
    case 'anonymous':
      return { type: 'anonymous' };
    default:
      return { type: 'system' };
  }
}

function requestFromRow(row: Row): AuditRequest | null {
  const requestId = optionalText(row, 'request_id');
  if (requestId === null) return null;
  const userAgent = optionalText(row, 'request_user_agent');
  const clientIpDigest = optionalText(row, 'request_client_ip_digest');
  return {
    requestId,
    method: text(row, 'request_method'),
    path: text(row, 'request_path'),
    ...(userAgent === null ? {} : { userAgent }),
    ...(clientIpDigest === null ? {} : { clientIpDigest }),
    trustedProxy: row['request_trusted_proxy'] === true,
  };
}
