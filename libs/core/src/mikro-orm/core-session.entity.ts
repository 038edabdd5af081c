import { EntitySchema } from '@mikro-orm/core';
import type { CorePrincipalAttributes } from '../principal.js';

/**
 * One row of `tessera_core.core_session`: a digest, never the token.
 *
 * @example
 * const row = await em.findOne(CoreSessionSchema, { tokenDigest: sha256Hex(token) }); // CoreSessionRecord | null
 */
export interface CoreSessionRecord {
  id: string;
  /** Lower-case hex SHA-256 of the session token. */
  tokenDigest: string;
  principalKind: string;
  principalId: string;
  roles: string[];
  permissions: string[];
  attributes: CorePrincipalAttributes | null;
  createdAt: Date;
  expiresAt: Date;
  lastSeenAt: Date;
  revokedAt: Date | null;
}

/**
 * The MikroORM entity of core sessions (schema `tessera_core`, table `core_session`); add it
 * (through `coreEntities`) to the ORM's `entities`. The table comes from `coreMigrations`.
 *
 * @example
 * MikroORM.init({ entities: [...coreEntities, ...appEntities], migrations: { migrationsList: [...coreMigrations] } });
 */
export const CoreSessionSchema = new EntitySchema<CoreSessionRecord>({
  name: 'TesseraCoreSession',
  tableName: 'core_session',
  schema: 'tessera_core',
  properties: {
    id: { type: 'uuid', primary: true },
    tokenDigest: {
      type: 'string',
      columnType: 'char(64)',
      fieldName: 'token_digest',
      unique: 'core_session_token_digest_unique',
    },
    principalKind: { type: 'string', length: 64, fieldName: 'principal_kind' },
    principalId: { type: 'string', length: 255, fieldName: 'principal_id' },
    roles: { type: 'json', columnType: 'jsonb' },
    permissions: { type: 'json', columnType: 'jsonb' },
    attributes: { type: 'json', columnType: 'jsonb', nullable: true },
    createdAt: { type: 'datetime', columnType: 'timestamptz', fieldName: 'created_at' },
    expiresAt: { type: 'datetime', columnType: 'timestamptz', fieldName: 'expires_at' },
    lastSeenAt: { type: 'datetime', columnType: 'timestamptz', fieldName: 'last_seen_at' },
    revokedAt: { type: 'datetime', columnType: 'timestamptz', fieldName: 'revoked_at', nullable: true },
  },
});

/**
 * Every entity of `@tessera/core`, for the ORM's `entities` option.
 *
 * @example
 * MikroORM.init({ entities: [...coreEntities], ... });
 */
export const coreEntities = [CoreSessionSchema] as const;
