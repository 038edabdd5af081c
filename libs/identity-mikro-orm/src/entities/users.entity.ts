import { EntitySchema } from '@mikro-orm/core';
import { IDENTITY_SCHEMA, USER_STATES, type UserState } from '../schema/identity-schema.values.js';
import {
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  integerColumn,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.users`.
 *
 * @example
 * const user = await em.findOne(IdentityUserSchema, { id }); // IdentityUserRow | null
 */
export interface IdentityUserRow {
  id: string;
  /** Case-insensitively unique when present; JIT-provisioned users have none. */
  primaryEmail: string | null;
  displayName: string;
  state: UserState;
  /** Advanced by epoch revocation; a session whose stored epoch differs is revoked. */
  sessionEpoch: number;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.users` (UNIQUE `lower(primary_email)` where present).
 *
 * @example
 * await em.insert(IdentityUserSchema, { id, primaryEmail: null, displayName: 'Ada', state: 'active', sessionEpoch: 0, createdAt: now, updatedAt: now, version: 0 });
 */
export const IdentityUserSchema = new EntitySchema<IdentityUserRow>({
  name: IDENTITY_ENTITY_NAMES.user,
  tableName: 'users',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    primaryEmail: textColumn('primary_email', { nullable: true }),
    displayName: textColumn('display_name'),
    state: enumColumn('state', USER_STATES),
    sessionEpoch: integerColumn('session_epoch', { default: 0 }),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    version: versionColumn(),
  },
  uniques: [
    {
      name: 'users_primary_email_lower_unique',
      expression:
        'create unique index "users_primary_email_lower_unique" on "tessera_identity"."users" (lower(primary_email)) where primary_email is not null',
    },
  ],
  checks: [
    check(
      'users_primary_email_check',
      "char_length(primary_email) >= 3 and char_length(primary_email) <= 320 and strpos(primary_email, '@') > 0",
    ),
    check('users_display_name_check', 'char_length(display_name) >= 1 and char_length(display_name) <= 200'),
    check('users_session_epoch_check', 'session_epoch >= 0'),
    check('users_version_check', 'version >= 0'),
  ],
});
