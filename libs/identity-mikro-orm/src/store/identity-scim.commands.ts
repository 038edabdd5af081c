import type { IdentityScimCommands, ScimBatchResult, ScimReceiptInput, ScimTenant } from '@tessera/identity';
import { abort, insertRow, isUuid, table, type Row, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { integer, optionalText, text } from './identity-row.mappers.js';
import { flushAudits, record, type ScimBatchContext } from './identity-scim-membership.effects.js';
import { createScimUser, deleteScimUser, replaceScimUser } from './identity-scim-user.commands.js';
import { changeScimGroup, createScimGroup, deleteScimGroup } from './identity-scim-group.commands.js';

type Input = Parameters<IdentityScimCommands['applyScimBatch']>[0];

/**
 * Under the operation id's transaction advisory lock: the receipt's first commit answered again
 * (`replayed`) when its request matches, `idempotency_conflict` when another request used the id,
 * `null` when the id is new.
 */
async function replay(sql: Sql, tenant: ScimTenant, receipt: ScimReceiptInput): Promise<ScimBatchResult | null> {
  if (!isUuid(receipt.operationId)) abort('invalid_transition');
  await sql(`select pg_advisory_xact_lock(hashtextextended(?::text, 0))`, [receipt.operationId]);
  const [row] = await sql(
    `select ${allColumns('scim_batch_operations')} from ${table('scim_batch_operations')} where operation_id = ?`,
    [receipt.operationId],
  );
  if (row === undefined) return null;
  const outcome = receiptOutcome(row, tenant, receipt);
  return outcome === 'conflict' ? abort('idempotency_conflict') : outcome;
}

/**
 * What a stored receipt answers for `receipt`: its first commit when the request matches (same
 * tenant, method, path, precondition and body digest), else `'conflict'`.
 *
 * @example
 * const outcome = receiptOutcome(row, tenant, receipt);
 */
export function receiptOutcome(row: Row, tenant: ScimTenant, receipt: ScimReceiptInput): ScimBatchResult | 'conflict' {
  const same =
    text(row, 'organization_id') === tenant.organizationId &&
    text(row, 'provider') === tenant.provider &&
    text(row, 'request_method') === receipt.method &&
    text(row, 'request_path') === receipt.path &&
    optionalText(row, 'request_precondition') === receipt.precondition &&
    text(row, 'request_digest') === receipt.requestDigest;
  if (!same) return 'conflict';
  return {
    replayed: true,
    status: integer(row, 'result_status'),
    resourceType: text(row, 'result_resource_type') as ScimBatchResult['resourceType'],
    resourceId: text(row, 'result_resource_id'),
    version: row['result_version'] === null ? null : integer(row, 'result_version'),
  };
}

function apply(context: ScimBatchContext, mutation: Input['mutation']): Promise<ScimBatchResult> {
  switch (mutation.kind) {
    case 'createUser':
      return createScimUser(context, mutation);
    case 'replaceUser':
      return replaceScimUser(context, mutation);
    case 'deleteUser':
      return deleteScimUser(context, mutation);
    case 'createGroup':
      return createScimGroup(context, mutation);
    case 'changeGroup':
      return changeScimGroup(context, mutation);
    case 'deleteGroup':
      return deleteScimGroup(context, mutation);
  }
}

/**
 * `applyScimBatch` (identity-model §5.10, §9.2): one transaction per SCIM request — the receipt
 * check under `pg_advisory_xact_lock` on the operation id, the mutation, its membership effects
 * and tenant revocations, the child and outer audits, then the receipt.
 *
 * @example
 * const result = await new IdentityScimCommandHandlers(gateway).applyScimBatch({ tenant, receipt: null, mutation, groupRoles: [], at, audit });
 */
export class IdentityScimCommandHandlers implements Pick<IdentityScimCommands, 'applyScimBatch'> {
  constructor(private readonly gateway: StoreGateway) {}

  applyScimBatch(input: Input): ReturnType<IdentityScimCommands['applyScimBatch']> {
    const { tenant, receipt, mutation, groupRoles, at, audit } = input;
    return this.gateway.command(async (sql) => {
      if (receipt !== null) {
        const replayed = await replay(sql, tenant, receipt);
        if (replayed !== null) return replayed;
      }
      if (!isUuid(tenant.organizationId)) abort('not_found');
      // The organization is pinned as active by the audit insert at the end (flushAudits).
      const context: ScimBatchContext = { sql, tenant, at, groupRoles, audit, audits: [], changes: 0 };
      const result = await apply(context, mutation);
      record(context, result.resourceType === 'user' ? 'scim.mutation_applied' : 'scim.group_changed', {
        type: result.resourceType === 'user' ? 'scim_user' : 'scim_group',
        id: result.resourceId,
      });
      await flushAudits(context);
      if (receipt !== null)
        await insertRow(sql, 'scim_batch_operations', {
          operation_id: receipt.operationId,
          organization_id: tenant.organizationId,
          provider: tenant.provider,
          request_method: receipt.method,
          request_path: receipt.path,
          request_precondition: receipt.precondition,
          request_digest: receipt.requestDigest,
          mutation_count: context.changes,
          result_status: result.status,
          result_resource_type: result.resourceType,
          result_resource_id: result.resourceId,
          result_version: result.version,
          committed_at: at,
        });
      return result;
    });
  }
}
