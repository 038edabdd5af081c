import type { IdentityErrorCode } from './identity.errors.js';

/**
 * Failure codes of the `IdentityStore` port (`identity-model.md` §9.4).
 *
 * @example
 * if (error instanceof StoreError && error.code === 'version_conflict') retry();
 */
export type StoreErrorCode =
  | 'not_found'
  | 'already_exists'
  | 'unique_constraint'
  | 'version_conflict'
  | 'invalid_transition'
  | 'challenge_not_pending'
  | 'challenge_expired'
  | 'session_not_active'
  | 'session_expired'
  | 'federation_provider_disabled'
  | 'recovery_code_not_active'
  | 'last_owner'
  | 'replay_detected'
  | 'idempotency_conflict'
  | 'unavailable'
  | 'internal';

/**
 * Which column of the §9.4 mapping applies: identity services (sessions, passkeys, recovery,
 * invitations, device, bootstrap) or organization and service-identity services.
 *
 * @example
 * mapStoreError('last_owner', 'organization'); // 'conflict'
 */
export type StoreErrorDomain = 'identity' | 'organization';

type MappingRow = readonly [identity: IdentityErrorCode, organization: IdentityErrorCode];

const STORE_ERROR_MAPPING: Readonly<Record<StoreErrorCode, MappingRow>> = Object.freeze({
  not_found: ['challenge_invalid', 'not_found'],
  challenge_not_pending: ['challenge_invalid', 'challenge_invalid'],
  challenge_expired: ['challenge_invalid', 'challenge_invalid'],
  already_exists: ['invalid_credentials', 'conflict'],
  unique_constraint: ['invalid_credentials', 'conflict'],
  last_owner: ['invalid_credentials', 'conflict'],
  invalid_transition: ['invalid_credentials', 'invalid_credentials'],
  session_not_active: ['invalid_credentials', 'invalid_credentials'],
  session_expired: ['invalid_credentials', 'invalid_credentials'],
  recovery_code_not_active: ['invalid_credentials', 'invalid_credentials'],
  replay_detected: ['invalid_credentials', 'invalid_credentials'],
  idempotency_conflict: ['invalid_credentials', 'invalid_credentials'],
  federation_provider_disabled: ['invalid_credentials', 'invalid_credentials'],
  version_conflict: ['conflict', 'conflict'],
  unavailable: ['service_unavailable', 'service_unavailable'],
  internal: ['service_unavailable', 'service_unavailable'],
});

/**
 * Every store error code.
 *
 * @example
 * expect(STORE_ERROR_CODES).toHaveLength(16);
 */
export const STORE_ERROR_CODES: readonly StoreErrorCode[] = Object.freeze(
  Object.keys(STORE_ERROR_MAPPING) as StoreErrorCode[],
);

/**
 * The identity error code a store failure becomes (`identity-model.md` §9.4).
 *
 * @example
 * throw new IdentityError(mapStoreError(error.code, 'identity'), { cause: error });
 */
export function mapStoreError(code: StoreErrorCode, domain: StoreErrorDomain): IdentityErrorCode {
  const row = STORE_ERROR_MAPPING[code];
  return domain === 'identity' ? row[0] : row[1];
}

/**
 * A typed failure of the `IdentityStore` port. Only `version_conflict` and `unavailable` are
 * retryable. The message is for logs only and never reaches a client.
 *
 * @example
 * throw new StoreError('unique_constraint', { cause: driverError });
 */
export class StoreError extends Error {
  override name = 'StoreError';
  /** `true` for `version_conflict` and `unavailable` only. */
  readonly retryable: boolean;

  constructor(
    /** Stable machine-readable code. */
    readonly code: StoreErrorCode,
    options: { cause?: unknown; message?: string } = {},
  ) {
    super(
      options.message ?? `identity store failure: ${code}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.retryable = code === 'version_conflict' || code === 'unavailable';
  }
}
