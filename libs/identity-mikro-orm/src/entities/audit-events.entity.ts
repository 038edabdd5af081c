import { EntitySchema } from '@mikro-orm/core';
import {
  AUDIT_ACTOR_TYPES,
  AUDIT_OUTCOMES,
  AUDIT_TARGET_TYPES,
  IDENTITY_SCHEMA,
  type AuditActorType,
  type AuditOutcome,
  type AuditTargetType,
} from '../schema/identity-schema.values.js';
import {
  booleanColumn,
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  referenceColumn,
  textColumn,
  timestampColumn,
  uuidColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.audit_events` (immutable): pseudonyms only, never a raw user-agent
 * or client address.
 *
 * @example
 * const page = await em.find(IdentityAuditEventSchema, { organizationId }, { orderBy: { occurredAt: 'desc', id: 'desc' }, limit: 51 });
 */
export interface IdentityAuditEventRow {
  id: string;
  actorType: AuditActorType;
  /** Set exactly for actor type `user`. */
  actorUserId: string | null;
  /** Set exactly for actor type `service`. */
  actorServiceIdentityId: string | null;
  organizationId: string | null;
  action: string;
  /** Set together with `targetId`. */
  targetType: AuditTargetType | null;
  /** A UUID, or a federation storage key for `federation_provider`. */
  targetId: string | null;
  outcome: AuditOutcome;
  reasonCode: string | null;
  /** Request facts: `requestId`, `requestMethod`, `requestPath`, `requestTrustedProxy` all or none. */
  requestId: string | null;
  requestMethod: string | null;
  requestPath: string | null;
  /** `v1.` + keyed pseudonym. */
  requestUserAgent: string | null;
  /** `v1.` + keyed pseudonym. */
  requestClientIpDigest: string | null;
  requestTrustedProxy: boolean | null;
  occurredAt: Date;
}

/**
 * Entity of `tessera_identity.audit_events`, indexed for the tenant keyset page
 * (organization_id, occurred_at desc, id desc) and for retention purges (occurred_at, id).
 *
 * @example
 * await em.insert(IdentityAuditEventSchema, { id, actorType: 'system', actorUserId: null, ..., occurredAt: now });
 */
export const IdentityAuditEventSchema = new EntitySchema<IdentityAuditEventRow>({
  name: IDENTITY_ENTITY_NAMES.auditEvent,
  tableName: 'audit_events',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    actorType: enumColumn('actor_type', AUDIT_ACTOR_TYPES),
    actorUserId: uuidColumn('actor_user_id', { nullable: true }),
    actorServiceIdentityId: uuidColumn('actor_service_identity_id', { nullable: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'audit_events_organization_id_foreign',
      { nullable: true },
    ),
    action: textColumn('action'),
    targetType: enumColumn('target_type', AUDIT_TARGET_TYPES, { nullable: true }),
    targetId: textColumn('target_id', { nullable: true }),
    outcome: enumColumn('outcome', AUDIT_OUTCOMES),
    reasonCode: textColumn('reason_code', { nullable: true }),
    requestId: textColumn('request_id', { nullable: true }),
    requestMethod: textColumn('request_method', { nullable: true }),
    requestPath: textColumn('request_path', { nullable: true }),
    requestUserAgent: textColumn('request_user_agent', { nullable: true }),
    requestClientIpDigest: textColumn('request_client_ip_digest', { nullable: true }),
    requestTrustedProxy: booleanColumn('request_trusted_proxy', { nullable: true }),
    occurredAt: timestampColumn('occurred_at'),
  },
  indexes: [
    {
      name: 'audit_events_organization_keyset_index',
      expression:
        'create index "audit_events_organization_keyset_index" on "tessera_identity"."audit_events" ("organization_id", "occurred_at" desc, "id" desc)',
    },
    { name: 'audit_events_occurred_at_id_index', properties: ['occurredAt', 'id'] },
  ],
  checks: [
    check(
      'audit_events_actor_check',
      "(actor_type = 'user') = (actor_user_id is not null) and (actor_type = 'service') = (actor_service_identity_id is not null)",
    ),
    check(
      'audit_events_action_check',
      "char_length(action) <= 200 and action ~ '^[a-z][a-z0-9_]*([.][a-z][a-z0-9_]*)+$'",
    ),
    check('audit_events_target_check', '(target_type is null) = (target_id is null)'),
    check('audit_events_target_id_check', 'char_length(target_id) >= 1 and char_length(target_id) <= 255'),
    check('audit_events_reason_code_check', 'char_length(reason_code) >= 1 and char_length(reason_code) <= 200'),
    check(
      'audit_events_request_check',
      'num_nonnulls(request_id, request_method, request_path, request_trusted_proxy) = any (array[0, 4]) and (request_id is not null or (request_user_agent is null and request_client_ip_digest is null))',
    ),
    check('audit_events_request_id_check', "request_id ~ '^[A-Za-z0-9._:-]{1,255}$'"),
    check(
      'audit_events_request_method_check',
      'char_length(request_method) >= 1 and char_length(request_method) <= 32',
    ),
    check('audit_events_request_path_check', 'char_length(request_path) >= 1 and char_length(request_path) <= 4096'),
    check('audit_events_request_user_agent_check', "request_user_agent ~ '^v1[.][A-Za-z0-9_-]{43}$'"),
    check('audit_events_request_client_ip_digest_check', "request_client_ip_digest ~ '^v1[.][A-Za-z0-9_-]{43}$'"),
  ],
});
