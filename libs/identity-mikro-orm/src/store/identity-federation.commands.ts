import { randomUUID } from 'node:crypto';
import type {
  FederatedAssertion,
  FederationProviderControlRecord,
  FederationProviderLease,
  FederationProviderState,
  IdentityFederationCommands,
  StoreFailureCode,
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
import { controlColumns, controlFromRow, transactionColumns, transactionFromRow } from './identity-federation.rows.js';
import { insertAudit } from './identity-session.commands.js';

/** `true` when `lease` is exactly the current, enabled `control` (identity-model §5.9). */
function leaseMatches(lease: FederationProviderLease, control: FederationProviderControlRecord): boolean {
  return (
    control.state === 'enabled' &&
    control.organizationId === lease.organizationId &&
    control.providerId === lease.providerId &&
    control.kind === lease.kind &&
    control.storageKey === lease.storageKey &&
    control.sessionEpoch === lease.sessionEpoch &&
    control.version === lease.version
  );
}

/**
 * The lease check inside a command's transaction: the control is read `FOR SHARE`, so a concurrent
 * disable (an update of the row) waits for this command's commit or is seen by it, never in
 * between. A missing, disabled, toggled or otherwise different control rolls back
 * `federation_provider_disabled`.
 */
export async function requireLease(sql: Sql, lease: FederationProviderLease): Promise<FederationProviderControlRecord> {
  if (!isUuid(lease.organizationId)) abort('federation_provider_disabled');
  const [row] = await sql(
    `select ${allColumns('federation_provider_controls')} from ${table('federation_provider_controls')}
      where organization_id = ? and provider_id = ?
      for share`,
    [lease.organizationId, lease.providerId],
  );
  const control = row === undefined ? null : controlFromRow(row);
  if (control === null || !leaseMatches(lease, control)) abort('federation_provider_disabled');
  return control;
}

/**
 * Inserts the replay receipt of `assertion` under the lease's storage key; one already there (the
 * same ID token or assertion used before, by any caller) rolls back `replay_detected`.
 */
export async function insertReplayReceipt(
  sql: Sql,
  lease: FederationProviderLease,
  assertion: FederatedAssertion,
  at: Date,
): Promise<void> {
  const [inserted] = await sql(
    `insert into ${table('external_replay_receipts')} ("id", "provider", "assertion_digest", "expires_at", "created_at")
     values (?, ?, ?, ?, ?)
     on conflict ("provider", "assertion_digest") do nothing
     returning id`,
    [randomUUID(), lease.storageKey, assertion.replayDigest, assertion.replayExpiresAt, at],
  );
  if (inserted === undefined) abort('replay_detected');
}

/** Locks the control of (organization, provider) `FOR UPDATE`, or `null` when there is none. */
export async function lockControl(
  sql: Sql,
  organizationId: string,
  providerId: string,
): Promise<FederationProviderControlRecord | null> {
  const [row] = await sql(
    `select ${allColumns('federation_provider_controls')} from ${table('federation_provider_controls')}
      where organization_id = ? and provider_id = ?
      for update`,
    [organizationId, providerId],
  );
  return row === undefined ? null : controlFromRow(row);
}

/**
 * Inserts a control unless (organization, provider) has one (then nothing: the caller locks the
 * existing row). Returns the inserted control or `null`. `on conflict do nothing` covers both
 * unique keys, so two first starts racing with the same storage key settle into one row instead of
 * a unique violation on the storage key; a storage key held by another provider is still
 * `unique_constraint`.
 */
export async function insertControlIfAbsent(
  sql: Sql,
  control: { organizationId: string; providerId: string; kind: string; storageKey: string },
  state: FederationProviderState,
  reason: string | null,
  at: Date,
): Promise<FederationProviderControlRecord | null> {
  const columns = controlColumns(control, state, reason, at);
  const names = Object.keys(columns);
  const [row] = await sql(
    `insert into ${table('federation_provider_controls')} (${names.map((c) => `"${c}"`).join(', ')})
     values (${names.map(() => '?').join(', ')})
     on conflict do nothing
     returning ${allColumns('federation_provider_controls')}`,
    names.map((c) => columns[c]),
  );
  if (row !== undefined) return controlFromRow(row);
  const [existing] = await sql(
    `select 1 as present from ${table('federation_provider_controls')} where organization_id = ? and provider_id = ?`,
    [control.organizationId, control.providerId],
  );
  if (existing === undefined) abort('unique_constraint');
  return null;
}

/**
 * The disable or enable transition of a control at `expectedVersion` (identity-model §5.9):
 * disable = version + 1, epoch + 1, `disabledAt`/reason set; enable = version + 1, epoch kept.
 * Returns `null` when the row is not in the source state at that version.
 */
export async function toggleControl(
  sql: Sql,
  input: {
    organizationId: string;
    providerId: string;
    expectedVersion: number;
    target: FederationProviderState;
    reason: string | null;
    at: Date;
  },
): Promise<FederationProviderControlRecord | null> {
  const { organizationId, providerId, expectedVersion, target, reason, at } = input;
  const [row] =
    target === 'disabled'
      ? await sql(
          `update ${table('federation_provider_controls')}
              set state = 'disabled', session_epoch = session_epoch + 1, disabled_at = ?, disabled_reason = ?,
                  updated_at = ?, version = version + 1
            where organization_id = ? and provider_id = ? and version = ? and state = 'enabled'
          returning ${allColumns('federation_provider_controls')}`,
          [at, reason, at, organizationId, providerId, expectedVersion],
        )
      : await sql(
          `update ${table('federation_provider_controls')}
              set state = 'enabled', disabled_at = null, disabled_reason = null, updated_at = ?, version = version + 1
            where organization_id = ? and provider_id = ? and version = ? and state = 'disabled'
          returning ${allColumns('federation_provider_controls')}`,
          [at, organizationId, providerId, expectedVersion],
        );
  return row === undefined ? null : controlFromRow(row);
}

/**
 * Why a CAS of a control matched no row: missing → `not_found`; another kind or storage key, or
 * already in the target state → `invalid_transition` (the caller re-reads: idempotent in the
 * target state); else `version_conflict`.
 */
async function classifyControlMiss(
  sql: Sql,
  input: { organizationId: string; providerId: string; kind: string; storageKey: string; target: string },
): Promise<StoreFailureCode> {
  const [row] = await sql(
    `select ${allColumns('federation_provider_controls')} from ${table('federation_provider_controls')}
      where organization_id = ? and provider_id = ?`,
    [input.organizationId, input.providerId],
  );
  if (row === undefined) return 'not_found';
  const control = controlFromRow(row);
  if (control.kind !== input.kind || control.storageKey !== input.storageKey) return 'invalid_transition';
  return control.state === input.target ? 'invalid_transition' : 'version_conflict';
}

type Input<K extends keyof IdentityFederationCommands> = Parameters<IdentityFederationCommands[K]>[0];
type Output<K extends keyof IdentityFederationCommands> = ReturnType<IdentityFederationCommands[K]>;

/**
 * Provider leases, the provider state CAS, federation transactions and replay receipts
 * (identity-model §5.9, §9.2), each one READ COMMITTED transaction. The control is locked
 * `FOR UPDATE` where it changes and `FOR SHARE` where a lease is checked; the primary key and
 * UNIQUE constraints settle the races the locks cannot (two first starts, a first start against a
 * first disable).
 *
 * @example
 * const lease = await commands.acquireFederationProviderLease({ organizationId, providerId: 'okta', kind: 'oidc', storageKey, at });
 */
export class IdentityFederationCommandHandlers implements Pick<
  IdentityFederationCommands,
  | 'acquireFederationProviderLease'
  | 'validateFederationProviderLease'
  | 'compareAndSetFederationProviderState'
  | 'createFederationTransaction'
  | 'consumeFederationTransaction'
  | 'recordExternalIdentityReplay'
> {
  constructor(private readonly gateway: StoreGateway) {}

  acquireFederationProviderLease(
    input: Input<'acquireFederationProviderLease'>,
  ): Output<'acquireFederationProviderLease'> {
    const { organizationId, providerId, kind, storageKey, at } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(organizationId)) abort('not_found');
      const [organization] = await sql(`select state from ${table('organizations')} where id = ? for share`, [
        organizationId,
      ]);
      if (organization === undefined || organization['state'] !== 'active') abort('not_found');
      const control =
        (await insertControlIfAbsent(sql, { organizationId, providerId, kind, storageKey }, 'enabled', null, at)) ??
        (await lockControl(sql, organizationId, providerId)) ??
        abort('version_conflict');
      if (control.kind !== kind || control.storageKey !== storageKey) abort('invalid_transition');
      if (control.state !== 'enabled') abort('federation_provider_disabled');
      const lease: FederationProviderLease = {
        organizationId,
        kind,
        providerId,
        storageKey,
        sessionEpoch: control.sessionEpoch,
        version: control.version,
      };
      return lease;
    });
  }

  validateFederationProviderLease(lease: FederationProviderLease): Output<'validateFederationProviderLease'> {
    return this.gateway.statement(async (sql) => {
      await requireLease(sql, lease);
    });
  }

  compareAndSetFederationProviderState(
    input: Input<'compareAndSetFederationProviderState'>,
  ): Output<'compareAndSetFederationProviderState'> {
    const { organizationId, providerId, kind, storageKey, expectedVersion, target, reason, at, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(organizationId)) abort('not_found');
      if (target === 'disabled' && (reason === null || reason.length < 1 || reason.length > 200))
        abort('invalid_transition');
      let control: FederationProviderControlRecord | null;
      if (expectedVersion === null) {
        const [organization] = await sql(`select id from ${table('organizations')} where id = ? for share`, [
          organizationId,
        ]);
        if (organization === undefined) abort('not_found');
        control = await insertControlIfAbsent(
          sql,
          { organizationId, providerId, kind, storageKey },
          target,
          target === 'disabled' ? reason : null,
          at,
        );
      } else {
        control = await toggleControl(sql, { organizationId, providerId, expectedVersion, target, reason, at });
        if (control !== null && (control.kind !== kind || control.storageKey !== storageKey))
          abort('invalid_transition');
      }
      if (control === null)
        abort(await classifyControlMiss(sql, { organizationId, providerId, kind, storageKey, target }));
      await insertAudit(sql, audit(control));
      return control;
    });
  }

  createFederationTransaction(
    transaction: Input<'createFederationTransaction'>,
  ): Output<'createFederationTransaction'> {
    return this.gateway.command(async (sql) => {
      await requireLease(sql, transaction.lease);
      if (transaction.initiatorSessionId !== null && !isUuid(transaction.initiatorSessionId)) abort('not_found');
      await insertRow(sql, 'federation_transactions', transactionColumns(transaction));
    });
  }

  consumeFederationTransaction(input: Input<'consumeFederationTransaction'>): Output<'consumeFederationTransaction'> {
    const { selectorDigest, organizationId, providerId, at } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(organizationId)) abort('not_found');
      // One DELETE … RETURNING: of concurrent consumers exactly one gets the row.
      const [row] = await sql(
        `delete from ${table('federation_transactions')}
          where selector_digest = ? and organization_id = ? and provider_id = ?
        returning ${allColumns('federation_transactions')}`,
        [selectorDigest, organizationId, providerId],
      );
      const transaction = transactionFromRow(row ?? abort('not_found'));
      // Expired: the deletion commits, the caller learns it was too late.
      if (at.getTime() >= transaction.expiresAt.getTime()) return new CommittedRejection('challenge_expired');
      return transaction;
    });
  }

  recordExternalIdentityReplay(input: Input<'recordExternalIdentityReplay'>): Output<'recordExternalIdentityReplay'> {
    const { lease, assertion, at } = input;
    return this.gateway.command(async (sql) => {
      await requireLease(sql, lease);
      await insertReplayReceipt(sql, lease, assertion, at);
    });
  }
}
