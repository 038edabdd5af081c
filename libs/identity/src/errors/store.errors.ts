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

const NETWORK_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const CONNECTION_MESSAGES = [
  /Timeout acquiring a connection/i,
  /timeout exceeded when trying to connect/i,
  /Connection terminated/i,
  /Client has encountered a connection error/i,
];
const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * Classifies a PostgreSQL / PGlite / MikroORM / knex / pool error into a store code
 * (`identity-model.md` §9.4). Follows `cause` / `previous` chains; a `StoreError` keeps its code.
 * `57014` (statement timeout) and `55P03` (lock timeout) are treated as `unavailable`.
 *
 * @example
 * catch (error) { throw new StoreError(classifyDatabaseError(error), { cause: error }); }
 */
export function classifyDatabaseError(error: unknown): StoreErrorCode {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    if (current instanceof StoreError) return current.code;
    const code = classifyOne(current as Record<string, unknown>);
    if (code !== undefined) return code;
    const next =
      (current as { cause?: unknown; previous?: unknown }).cause ?? (current as { previous?: unknown }).previous;
    if (next === current) break;
    current = next;
  }
  return 'internal';
}

function classifyOne(error: Record<string, unknown>): StoreErrorCode | undefined {
  for (const key of ['sqlState', 'code'] as const) {
    const value = error[key];
    if (typeof value !== 'string') continue;
    if (SQLSTATE.test(value)) {
      const state = classifySqlState(value);
      if (state !== undefined) return state;
    }
    if (NETWORK_ERRNO.has(value)) return 'unavailable';
  }
  if (error['name'] === 'KnexTimeoutError') return 'unavailable';
  const message = error['message'];
  if (typeof message === 'string' && CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) return 'unavailable';
  return undefined;
}

function classifySqlState(state: string): StoreErrorCode | undefined {
  if (state === '23505') return 'unique_constraint';
  if (state === '23503' || state === '23514' || state === '22P02') return 'invalid_transition';
  if (state === '40001' || state === '40P01') return 'version_conflict';
  if (
    state.startsWith('08') ||
    state === '53300' ||
    state === '57014' ||
    state === '55P03' ||
    /^57P0[0-9]$/.test(state)
  )
    return 'unavailable';
  return undefined;
}
