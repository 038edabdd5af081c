import { EntitySchema } from '@mikro-orm/core';
import {
  IDENTITY_SCHEMA,
  SCIM_GROUP_STATES,
  SCIM_MUTATION_METHODS,
  SCIM_RESOURCE_TYPES,
  type ScimGroupState,
  type ScimMutationMethod,
  type ScimResourceType,
} from '../schema/identity-schema.values.js';
import {
  check,
  DIGEST_32_PATTERN,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  integerColumn,
  referenceColumn,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * The idempotency receipt of one SCIM mutation (`tessera_identity.scim_operations`): the request
 * fingerprint that a reused `Idempotency-Key` must match, and the committed result to answer with.
 *
 * @example
 * const receipt = await em.findOne(IdentityScimOperationSchema, { operationId: idempotencyKey });
 */
export interface IdentityScimOperationRow {
  /** The `Idempotency-Key` (UUIDv7). */
  operationId: string;
  organizationId: string;
  /** The SCIM provider key `<providerName>:<organizationId>`. */
  provider: string;
  requestMethod: ScimMutationMethod;
  requestPath: string;
  /** The `If-Match` value, when sent. */
  requestPrecondition: string | null;
  /** Unpadded base64url SHA-256 of the canonical command (method, path, precondition, body). */
  requestDigest: string;
  resultStatus: number;
  /** Set together with `resultResourceId`. */
  resultResourceType: ScimResourceType | null;
  resultResourceId: string | null;
  /** The resource version (ETag) after the mutation. */
  resultVersion: number | null;
  committedAt: Date;
}

/** A whole idempotent SCIM batch (`tessera_identity.scim_batch_operations`): the receipt plus its mutation count. */
export interface IdentityScimBatchOperationRow extends IdentityScimOperationRow {
  mutationCount: number;
}

function receiptProperties(table: string) {
  return {
    operationId: uuidColumn('operation_id', { primary: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      `${table}_organization_id_foreign`,
    ),
    provider: textColumn('provider'),
    requestMethod: enumColumn('request_method', SCIM_MUTATION_METHODS),
    requestPath: textColumn('request_path'),
    requestPrecondition: textColumn('request_precondition', { nullable: true }),
    requestDigest: textColumn('request_digest'),
    resultStatus: integerColumn('result_status'),
    resultResourceType: enumColumn('result_resource_type', SCIM_RESOURCE_TYPES, { nullable: true }),
    resultResourceId: uuidColumn('result_resource_id', { nullable: true }),
    resultVersion: integerColumn('result_version', { nullable: true }),
    committedAt: timestampColumn('committed_at'),
  };
}

function receiptChecks(table: string) {
  return [
    check(`${table}_provider_check`, 'char_length(provider) >= 1 and char_length(provider) <= 300'),
    check(`${table}_request_path_check`, 'char_length(request_path) >= 1 and char_length(request_path) <= 4096'),
    check(
      `${table}_request_precondition_check`,
      'char_length(request_precondition) >= 1 and char_length(request_precondition) <= 255',
    ),
    check(`${table}_request_digest_check`, `request_digest ~ '${DIGEST_32_PATTERN}'`),
    check(`${table}_result_status_check`, 'result_status >= 200 and result_status <= 599'),
    check(`${table}_result_resource_check`, '(result_resource_type is null) = (result_resource_id is null)'),
    check(`${table}_result_version_check`, 'result_version >= 0'),
  ];
}

/**
 * Entity of `tessera_identity.scim_operations` (PK `operation_id`).
 *
 * @example
 * await em.insert(IdentityScimOperationSchema, { operationId, organizationId, provider, requestMethod: 'POST', ... });
 */
export const IdentityScimOperationSchema = new EntitySchema<IdentityScimOperationRow>({
  name: IDENTITY_ENTITY_NAMES.scimOperation,
  tableName: 'scim_operations',
  schema: IDENTITY_SCHEMA,
  properties: receiptProperties('scim_operations'),
  checks: receiptChecks('scim_operations'),
});

/**
 * Entity of `tessera_identity.scim_batch_operations` (PK `operation_id`).
 *
 * @example
 * const receipt = await em.findOne(IdentityScimBatchOperationSchema, { operationId: idempotencyKey });
 */
export const IdentityScimBatchOperationSchema = new EntitySchema<IdentityScimBatchOperationRow>({
  name: IDENTITY_ENTITY_NAMES.scimBatchOperation,
  tableName: 'scim_batch_operations',
  schema: IDENTITY_SCHEMA,
  properties: { ...receiptProperties('scim_batch_operations'), mutationCount: integerColumn('mutation_count') },
  checks: [
    ...receiptChecks('scim_batch_operations'),
    check('scim_batch_operations_mutation_count_check', 'mutation_count >= 0'),
  ],
});

/**
 * One row of `tessera_identity.scim_groups` (versions start at 1: the ETag `W/"1"`).
 *
 * @example
 * const group = await em.findOne(IdentityScimGroupSchema, { organizationId, provider, externalId, state: 'active' });
 */
export interface IdentityScimGroupRow {
  id: string;
  organizationId: string;
  /** The SCIM provider key `<providerName>:<organizationId>`. */
  provider: string;
  externalId: string | null;
  displayName: string;
  state: ScimGroupState;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.scim_groups`: active groups are unique per tenant by
 * `lower(display_name)` and by `external_id`.
 *
 * @example
 * await em.insert(IdentityScimGroupSchema, { id, organizationId, provider, externalId: null, displayName: 'Editors', state: 'active', createdAt: now, updatedAt: now, version: 1 });
 */
export const IdentityScimGroupSchema = new EntitySchema<IdentityScimGroupRow>({
  name: IDENTITY_ENTITY_NAMES.scimGroup,
  tableName: 'scim_groups',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'scim_groups_organization_id_foreign',
    ),
    provider: textColumn('provider'),
    externalId: textColumn('external_id', { nullable: true }),
    displayName: textColumn('display_name'),
    state: enumColumn('state', SCIM_GROUP_STATES),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    version: versionColumn(1),
  },
  uniques: [
    {
      name: 'scim_groups_active_display_name_unique',
      expression:
        'create unique index "scim_groups_active_display_name_unique" on "tessera_identity"."scim_groups" (organization_id, provider, lower(display_name)) where state = \'active\'',
    },
    {
      name: 'scim_groups_active_external_id_unique',
      expression:
        'create unique index "scim_groups_active_external_id_unique" on "tessera_identity"."scim_groups" (organization_id, provider, external_id) where state = \'active\' and external_id is not null',
    },
  ],
  checks: [
    check('scim_groups_provider_check', 'char_length(provider) >= 1 and char_length(provider) <= 300'),
    check('scim_groups_external_id_check', 'char_length(external_id) >= 1 and char_length(external_id) <= 1024'),
    check('scim_groups_display_name_check', 'char_length(display_name) >= 1 and char_length(display_name) <= 1024'),
    check('scim_groups_version_check', 'version >= 1'),
  ],
});
