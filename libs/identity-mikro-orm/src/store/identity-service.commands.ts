import type { IdentityServiceCommands, ServiceIdentityRecord, StoreFailureCode } from '@tessera/identity';
import { abort, insertRow, isUuid, table, type Row, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { insertAudit } from './identity-session.commands.js';
import {
  scopesWithin,
  serviceCredentialColumns,
  serviceCredentialFromRow,
  serviceIdentityColumns,
  serviceIdentityFromRow,
} from './identity-service.rows.js';

type Commands = IdentityServiceCommands;

/**
 * Locks the identity row `for share` (a concurrent revoke, which updates it, waits for this
 * transaction or is waited for): it must belong to `organizationId` when given (else
 * `not_found`) and be `active` (else `invalid_transition`).
 */
async function lockActiveIdentity(
  sql: Sql,
  serviceIdentityId: string,
  organizationId?: string,
): Promise<ServiceIdentityRecord> {
  if (!isUuid(serviceIdentityId) || (organizationId !== undefined && !isUuid(organizationId))) abort('not_found');
  const [row] = await sql(
    `select ${allColumns('service_identities')} from ${table('service_identities')} where id = ? for share`,
    [serviceIdentityId],
  );
  const identity = serviceIdentityFromRow(row ?? abort('not_found'));
  if (organizationId !== undefined && identity.organizationId !== organizationId) abort('not_found');
  if (identity.state !== 'active') abort('invalid_transition');
  return identity;
}

/** Why a CAS on a service identity matched no row: missing or another organization's, revoked, or another version. */
async function classifyIdentityMiss(sql: Sql, id: string, organizationId: string): Promise<StoreFailureCode> {
  const [row] = await sql(
    `select ${allColumns('service_identities')} from ${table('service_identities')} where id = ?`,
    [id],
  );
  if (row === undefined || row['organization_id'] !== organizationId) return 'not_found';
  return row['state'] === 'revoked' ? 'invalid_transition' : 'version_conflict';
}

/** Why a credential update matched no row: missing or another identity's → `not_found`, else its state forbids it. */
async function classifyCredentialMiss(sql: Sql, id: string, serviceIdentityId: string): Promise<StoreFailureCode> {
  const [row] = await sql(`select service_identity_id from ${table('service_credentials')} where id = ?`, [id]);
  return row === undefined || row['service_identity_id'] !== serviceIdentityId ? 'not_found' : 'invalid_transition';
}

const REVOKE_CREDENTIALS = `update ${table('service_credentials')}
    set state = 'revoked', revoked_at = ?, updated_at = ?, version = version + 1
  where service_identity_id = ? and state in ('active', 'rotated')`;

/**
 * Service identity and credential commands of identity-model §5.8 / §9.2, each one READ COMMITTED
 * transaction: conditional updates for the state machine, `for share` on the identity row against
 * a concurrent revoke, `for update` on a rotated credential so that of two rotations one wins.
 *
 * @example
 * const rotated = await commands.rotateServiceCredential({ serviceIdentityId, credentialId, replacement, at, audit });
 */
export class IdentityServiceCommandHandlers implements IdentityServiceCommands {
  constructor(private readonly gateway: StoreGateway) {}

  /** The organization must be active (locked `for share` against a concurrent soft delete). */
  createServiceIdentity(
    input: Parameters<Commands['createServiceIdentity']>[0],
  ): ReturnType<Commands['createServiceIdentity']> {
    const { identity, credential, at, audits } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(identity.organizationId)) abort('not_found');
      const [organization] = await sql(`select state from ${table('organizations')} where id = ? for share`, [
        identity.organizationId,
      ]);
      if (organization === undefined || organization['state'] !== 'active') abort('not_found');
      if (credential.serviceIdentityId !== identity.id || !scopesWithin(credential.capabilities, identity.capabilities))
        abort('invalid_transition');
      const inserted = serviceIdentityFromRow(
        await insertRow(sql, 'service_identities', serviceIdentityColumns(identity, at)),
      );
      const first = serviceCredentialFromRow(
        await insertRow(sql, 'service_credentials', serviceCredentialColumns(credential, at)),
      );
      for (const audit of audits) await insertAudit(sql, audit);
      return { identity: inserted, credential: first };
    });
  }

  mutateServiceIdentity(
    input: Parameters<Commands['mutateServiceIdentity']>[0],
  ): ReturnType<Commands['mutateServiceIdentity']> {
    const { serviceIdentityId: id, organizationId, expectedVersion, change, at, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(id) || !isUuid(organizationId)) abort('not_found');
      const [set, params] =
        change.kind === 'update'
          ? ['name = ?, description = ?', [change.name, change.description]]
          : ["state = 'revoked', revoked_at = ?", [at]];
      const [row] = await sql(
        `update ${table('service_identities')}
            set ${set}, updated_at = ?, version = version + 1
          where id = ? and organization_id = ? and version = ? and state <> 'revoked'
        returning ${allColumns('service_identities')}`,
        [...params, at, id, organizationId, expectedVersion],
      );
      if (row === undefined) abort(await classifyIdentityMiss(sql, id, organizationId));
      const revoked =
        change.kind === 'revoke' ? await sql(`${REVOKE_CREDENTIALS} returning id`, [at, at, id]) : ([] as Row[]);
      await insertAudit(sql, audit);
      return {
        identity: serviceIdentityFromRow(row),
        revokedCredentialIds: revoked.map((r) => String(r['id'])).sort(),
      };
    });
  }

  createServiceCredential(
    input: Parameters<Commands['createServiceCredential']>[0],
  ): ReturnType<Commands['createServiceCredential']> {
    const { organizationId, credential, at, audit } = input;
    return this.gateway.command(async (sql) => {
      const identity = await lockActiveIdentity(sql, credential.serviceIdentityId, organizationId);
      if (!scopesWithin(credential.capabilities, identity.capabilities)) abort('invalid_transition');
      const inserted = await insertRow(sql, 'service_credentials', serviceCredentialColumns(credential, at));
      await insertAudit(sql, audit);
      return serviceCredentialFromRow(inserted);
    });
  }

  revokeServiceCredential(
    input: Parameters<Commands['revokeServiceCredential']>[0],
  ): ReturnType<Commands['revokeServiceCredential']> {
    const { serviceIdentityId, credentialId, at, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(serviceIdentityId) || !isUuid(credentialId)) abort('not_found');
      const [row] = await sql(`${REVOKE_CREDENTIALS} and id = ? returning ${allColumns('service_credentials')}`, [
        at,
        at,
        serviceIdentityId,
        credentialId,
      ]);
      if (row === undefined) abort(await classifyCredentialMiss(sql, credentialId, serviceIdentityId));
      await insertAudit(sql, audit);
      return serviceCredentialFromRow(row);
    });
  }

  /** The replacement is inserted first: the predecessor's `rotated_to_id` references it. */
  rotateServiceCredential(
    input: Parameters<Commands['rotateServiceCredential']>[0],
  ): ReturnType<Commands['rotateServiceCredential']> {
    const { serviceIdentityId, credentialId, replacement, at, audit } = input;
    return this.gateway.command(async (sql) => {
      const identity = await lockActiveIdentity(sql, serviceIdentityId);
      if (!isUuid(credentialId)) abort('not_found');
      const [locked] = await sql(
        `select ${allColumns('service_credentials')} from ${table('service_credentials')} where id = ? for update`,
        [credentialId],
      );
      const old = serviceCredentialFromRow(locked ?? abort('not_found'));
      if (old.serviceIdentityId !== identity.id) abort('not_found');
      if (old.state !== 'active' || at.getTime() >= old.expiresAt.getTime()) abort('invalid_transition');
      if (!scopesWithin(old.capabilities, identity.capabilities)) abort('invalid_transition');
      const next = { ...replacement, serviceIdentityId: identity.id, capabilities: old.capabilities };
      const inserted = await insertRow(sql, 'service_credentials', serviceCredentialColumns(next, at));
      const [rotated] = await sql(
        `update ${table('service_credentials')}
            set state = 'rotated', rotated_at = ?, rotated_to_id = ?, updated_at = ?, version = version + 1
          where id = ? and state = 'active'
        returning ${allColumns('service_credentials')}`,
        [at, replacement.id, at, credentialId],
      );
      await insertAudit(sql, audit);
      return {
        previous: serviceCredentialFromRow(rotated ?? abort('invalid_transition')),
        credential: serviceCredentialFromRow(inserted),
      };
    });
  }

  touchServiceCredential(
    input: Parameters<Commands['touchServiceCredential']>[0],
  ): ReturnType<Commands['touchServiceCredential']> {
    const { credentialId, lastUsedAt, staleBefore } = input;
    return this.gateway.statement(async (sql) => {
      if (!isUuid(credentialId)) return null;
      const [row] = await sql(
        `update ${table('service_credentials')}
            set last_used_at = ?, updated_at = ?, version = version + 1
          where id = ? and (last_used_at is null or last_used_at <= ?)
        returning ${allColumns('service_credentials')}`,
        [lastUsedAt, lastUsedAt, credentialId, staleBefore],
      );
      return row === undefined ? null : serviceCredentialFromRow(row);
    });
  }
}
