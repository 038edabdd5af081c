import type { IdentityScimCommands, NewScimConnectionToken } from '@tessera/identity';
import { abort, insertRow, insertRows, isUuid, table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { insertAudit } from './identity-session.commands.js';
import { groupRoleColumns, readConnection, scimConnectionFromRow } from './identity-scim.rows.js';

type Commands = IdentityScimCommands;

/** The columns of a new `active` connection token. */
function tokenColumns(connectionId: string, token: NewScimConnectionToken, at: Date) {
  return {
    id: token.id,
    connection_id: connectionId,
    digest_algorithm: token.secretDigest.algorithm,
    digest_encoded: token.secretDigest.encoded,
    digest_key_version: token.secretDigest.keyVersion,
    state: 'active',
    created_at: at,
    rotated_at: null,
    revoked_at: null,
    version: 0,
  };
}

/** The organization's connection locked `for update`, `not_found` when missing, `invalid_transition` when revoked. */
async function lockActiveConnection(sql: Sql, organizationId: string, connectionId: string) {
  if (!isUuid(organizationId) || !isUuid(connectionId)) abort('not_found');
  const connection = (await readConnection(sql, organizationId, connectionId, true)) ?? abort('not_found');
  if (connection.state !== 'active') abort('invalid_transition');
  return connection;
}

/**
 * Organization-managed SCIM connections (issue 15): create with rules and a first token, revoke
 * with every token, rotate the token (the previous one stays `rotated` for the overlap).
 *
 * @example
 * const created = await new IdentityScimConnectionCommandHandlers(gateway).createScimConnection({ connection, token, at, audit });
 */
export class IdentityScimConnectionCommandHandlers implements Pick<
  Commands,
  'createScimConnection' | 'revokeScimConnection' | 'rotateScimConnectionToken'
> {
  constructor(private readonly gateway: StoreGateway) {}

  createScimConnection(
    input: Parameters<Commands['createScimConnection']>[0],
  ): ReturnType<Commands['createScimConnection']> {
    const { connection, token, at, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(connection.organizationId)) abort('not_found');
      if (!isUuid(connection.id) || !isUuid(token.id) || token.secretDigest.keyVersion === null)
        abort('invalid_transition');
      const [organization] = await sql(`select state from ${table('organizations')} where id = ? for share`, [
        connection.organizationId,
      ]);
      if (organization === undefined || organization['state'] !== 'active') abort('not_found');
      const row = await insertRow(sql, 'scim_connections', {
        id: connection.id,
        organization_id: connection.organizationId,
        provider_name: connection.providerName,
        state: 'active',
        created_at: at,
        updated_at: at,
        revoked_at: null,
        token_issued_at: at,
        version: 0,
      });
      if (connection.groupRoles.length > 0)
        await insertRows(sql, 'scim_connection_group_roles', groupRoleColumns(connection.id, connection.groupRoles));
      await insertRow(sql, 'scim_connection_tokens', tokenColumns(connection.id, token, at));
      await insertAudit(sql, audit);
      return scimConnectionFromRow(row, connection.groupRoles);
    });
  }

  revokeScimConnection(
    input: Parameters<Commands['revokeScimConnection']>[0],
  ): ReturnType<Commands['revokeScimConnection']> {
    const { organizationId, connectionId, at, audit } = input;
    return this.gateway.command(async (sql) => {
      const connection = await lockActiveConnection(sql, organizationId, connectionId);
      const [row] = await sql(
        `update ${table('scim_connections')}
            set state = 'revoked', revoked_at = ?, updated_at = ?, version = version + 1
          where id = ? returning ${allColumns('scim_connections')}`,
        [at, at, connectionId],
      );
      await sql(
        `update ${table('scim_connection_tokens')}
            set state = 'revoked', revoked_at = ?, version = version + 1
          where connection_id = ? and state <> 'revoked'`,
        [at, connectionId],
      );
      await insertAudit(sql, audit);
      return scimConnectionFromRow(row ?? abort('internal'), connection.groupRoles);
    });
  }

  rotateScimConnectionToken(
    input: Parameters<Commands['rotateScimConnectionToken']>[0],
  ): ReturnType<Commands['rotateScimConnectionToken']> {
    const { organizationId, connectionId, token, at, audit } = input;
    return this.gateway.command(async (sql) => {
      const connection = await lockActiveConnection(sql, organizationId, connectionId);
      if (!isUuid(token.id) || token.secretDigest.keyVersion === null) abort('invalid_transition');
      await sql(
        `update ${table('scim_connection_tokens')}
            set state = 'revoked', revoked_at = ?, version = version + 1
          where connection_id = ? and state = 'rotated'`,
        [at, connectionId],
      );
      await sql(
        `update ${table('scim_connection_tokens')}
            set state = 'rotated', rotated_at = ?, version = version + 1
          where connection_id = ? and state = 'active'`,
        [at, connectionId],
      );
      await insertRow(sql, 'scim_connection_tokens', tokenColumns(connectionId, token, at));
      const [row] = await sql(
        `update ${table('scim_connections')} set token_issued_at = ?, updated_at = ?, version = version + 1
          where id = ? returning ${allColumns('scim_connections')}`,
        [at, at, connectionId],
      );
      await insertAudit(sql, audit);
      return scimConnectionFromRow(row ?? abort('internal'), connection.groupRoles);
    });
  }
}
