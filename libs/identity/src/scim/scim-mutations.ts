import type { Exchange } from '@tessera/web';
import type { IdentityKernel } from '../identity-kernel.js';
import type { StoreErrorCode } from '../errors/store.errors.js';
import type { ScimBatchResult, ScimMutation, ScimReceiptInput } from '../store/identity-scim.port.js';
import type { ScimGroupRoleRule, ScimTenant } from '../store/identity-scim.records.js';
import { ScimError } from './scim.errors.js';

/** What one SCIM mutation request carries into the store besides the mutation. */
export interface ScimMutationRequest {
  readonly exchange: Exchange;
  readonly at: Date;
  readonly tenant: ScimTenant;
  readonly groupRoles: readonly ScimGroupRoleRule[];
  readonly receipt: ScimReceiptInput | null;
}

/** A failed batch: the store code, for callers that retry a lost compare-and-set. */
export class ScimStoreFailure extends Error {
  constructor(readonly code: StoreErrorCode) {
    super(code);
    this.name = 'ScimStoreFailure';
  }
}

const ANSWERS: Partial<Record<StoreErrorCode, ScimError>> = {
  not_found: new ScimError(404, undefined, 'The resource was not found'),
  unique_constraint: new ScimError(409, 'uniqueness', 'A resource with that identifier already exists'),
  already_exists: new ScimError(409, 'uniqueness', 'A resource with that identifier already exists'),
  idempotency_conflict: new ScimError(409, 'uniqueness', 'The Idempotency-Key was used for another request'),
  invalid_transition: new ScimError(
    400,
    'invalidValue',
    'A member is not a user of this tenant, or the group would have more than 10,000 members',
  ),
  last_owner: new ScimError(409, undefined, 'The last owner of the organization cannot be removed'),
  version_conflict: new ScimError(412, undefined, 'The resource version does not match If-Match'),
};
const UNAVAILABLE = new ScimError(503, undefined, 'The provisioning service is temporarily unavailable');

/**
 * The SCIM answer of a store failure code (identity-http §7 results): 404, 409 `uniqueness`, 400
 * `invalidValue` for an unknown member, 409 for the last owner, 412 for a lost precondition,
 * 503 for an outage.
 *
 * @example
 * throw scimStoreFailure('unique_constraint');
 */
export function scimStoreFailure(code: StoreErrorCode): ScimError {
  return ANSWERS[code] ?? UNAVAILABLE;
}

/**
 * Applies one mutation as one idempotent batch (identity-model §5.10): audits are built here with
 * the request's facts (actor `system`, reason = the provider name) and written by the store in
 * the same transaction. Throws {@link ScimStoreFailure} with the store's code.
 *
 * @example
 * const result = await applyScimMutation(kernel, request, { kind: 'deleteUser', scimUserId, expectedVersion: null });
 */
export async function applyScimMutation(
  kernel: IdentityKernel,
  request: ScimMutationRequest,
  mutation: ScimMutation,
): Promise<ScimBatchResult> {
  const { exchange, at, tenant } = request;
  let result;
  try {
    result = await kernel.store.applyScimBatch({
      tenant,
      receipt: request.receipt,
      mutation,
      groupRoles: request.groupRoles,
      at,
      audit: (facts) =>
        kernel.audit.event(exchange, at, {
          actor: { type: 'system' },
          organizationId: tenant.organizationId,
          action: facts.action,
          target: facts.target,
          outcome: facts.outcome ?? 'succeeded',
          reasonCode: `scim:${tenant.providerName}`,
        }),
    });
  } catch {
    throw UNAVAILABLE;
  }
  if (!result.ok) throw new ScimStoreFailure(result.code);
  return result.value;
}
