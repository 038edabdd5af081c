import { MAX_PREVIOUS_KEY_VERSIONS, MIN_SECRET_BYTES } from '../runtime/key-ring.resolver.js';

const DAY = 86_400;
const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * Lifetimes in seconds (`identity-model.md` §3). Defaults and bounds in `DEFAULT_IDENTITY_LIFETIMES`.
 *
 * @example
 * lifetimes: { sessionIdleSeconds: 8 * 3600 }
 */
export interface IdentityLifetimes {
  /** A session ends this long after sign-in, however active. @default 2 592 000 (30 d); ≤ 90 d */
  readonly sessionAbsoluteSeconds: number;
  /** A session ends after this long without a request. @default 86 400 (24 h); ≤ absolute */
  readonly sessionIdleSeconds: number;
  /** A busy session is written at most this often, so idle expiry is exact to within it. @default 60; 0..idle */
  readonly touchIntervalSeconds: number;
  /**
   * How long one process may reuse a validated session read (`0` = off: every request reads the
   * store). A change to a session or user is seen at once by every instance: the database notifies
   * each one on commit, and an instance whose listener is lost or unconfirmed reads the store on
   * every request until it is back. On embedded PGlite (one process) the process's own commands
   * invalidate; a write made around Tessera (SQL through the socket) is seen within this bound.
   * @default 5; 0..60
   */
  readonly sessionCacheSeconds: number;
  /** A WebAuthn ceremony (bound to the `__Host-tessera_ceremony` cookie) lives this long. @default 300; 30..600 */
  readonly challengeSeconds: number;
  /** How recent a passkey verification must be for step-up-only operations. @default 300; ≤ 900 */
  readonly stepUpWindowSeconds: number;
  /** An administrative recovery ticket lives this long. @default 900; ≥ challenge, ≤ 3600 */
  readonly adminRecoveryTicketSeconds: number;
  /** The restricted session of bootstrap, invitation enrollment and recovery lives this long. @default 900; ≤ 1800 */
  readonly restrictedSessionSeconds: number;
  /** An invitation can be accepted this long. @default 604 800 (7 d); ≤ 365 d */
  readonly invitationSeconds: number;
  /** A device-authorization grant lives this long. @default 600; ≤ 1800 */
  readonly deviceGrantSeconds: number;
  /** The device flow's polling interval. @default 5; 5..300 */
  readonly devicePollingIntervalSeconds: number;
  /** A device access token lives this long. @default 900; ≤ 3600 */
  readonly deviceAccessTokenSeconds: number;
  /** Device token family / refresh token. @default 2 592 000; ≤ 90 d */
  readonly deviceTokenFamilySeconds: number;
  /**
   * After a refresh token was rotated, re-presenting it with the same `client_id` within this many
   * seconds returns the identical successor pair (while the successor is unused) instead of being a
   * replay; `0` disables the retry window. @default 30; 0..60
   */
  readonly refreshRetrySeconds: number;
  /** Default service-credential lifetime. @default 2 592 000; ≤ max */
  readonly serviceCredentialSeconds: number;
  /** Longest service-credential lifetime a request may ask for. @default 7 776 000; ≤ 90 d */
  readonly serviceCredentialMaxSeconds: number;
  /** After a rotation, the old service credential keeps working this long. @default 600; 0..86 400 */
  readonly serviceCredentialRotationOverlapSeconds: number;
  /** Federation `__Host-tessera_csrf` cookie. @default 300; 30..600 */
  readonly federationCsrfCookieSeconds: number;
  /** An OIDC/SAML sign-in must come back from the provider within this long (the state cookie lives as long). @default 300; 30..900 */
  readonly federationTransactionSeconds: number;
  /** Clock skew tolerated on ID-token and assertion times. @default 30; 0..300 */
  readonly federationClockSkewSeconds: number;
}

/**
 * Configurable size limits (`identity-model.md` §4); fixed ones are in `IDENTITY_FIXED_LIMITS`.
 *
 * @example
 * limits: { jsonBodyBytes: 64 * 1024 }
 */
export interface IdentityLimits {
  /** Largest JSON body of an identity route. @default 1 MiB; 4 KiB..4 MiB */
  readonly jsonBodyBytes: number;
  /** OAuth form bodies. @default 32 KiB; 1..64 KiB */
  readonly formBodyBytes: number;
  /** Largest SCIM body. @default 1 MiB; 1 KiB..4 MiB */
  readonly scimBodyBytes: number;
  /** Outbound identity HTTP responses. @default 4 MiB; 1 KiB..16 MiB */
  readonly outboundResponseBytes: number;
  /** Audit page size when the query names none. @default 50; 1..100 */
  readonly auditPageSizeDefault: number;
  /** Rows deleted per batch by `npm run audit:purge` (`IdentityAudit.purgeExpired()`). @default 250; 1..500 */
  readonly auditPurgeBatchSize: number;
  /** Most events one audit export response writes; its trailer's cursor continues. @default 1000000; 1..10000000 */
  readonly auditExportMaxEvents: number;
}

/**
 * Lifetimes the contract fixes (not configurable), in seconds.
 *
 * @example
 * const fed1Open = ageSeconds < IDENTITY_FIXED_LIFETIMES.fed1WindowSeconds;
 */
export const IDENTITY_FIXED_LIFETIMES = Object.freeze({
  fed1WindowSeconds: 300,
  invitationEnrollmentSessionSeconds: 900,
  federationStateCookieMaxSeconds: 900,
});

/**
 * Limits the contract fixes (`identity-model.md` §4).
 *
 * @example
 * if (body.byteLength > IDENTITY_FIXED_LIMITS.deviceInspectBodyBytes) throw new IdentityError('request_invalid');
 */
export const IDENTITY_FIXED_LIMITS = Object.freeze({
  formFields: 32,
  formValueChars: 8192,
  deviceInspectBodyBytes: 256,
  samlFormBytes: 8 * MIB,
  samlResponseChars: 4 * MIB,
  oidcCallbackQueryBytes: 12 * KIB,
  identityQueryChars: 8192,
  deviceLabelChars: 200,
  userAgentChars: 2048,
  auditPathChars: 4096,
  nameChars: 200,
  descriptionChars: 2000,
  emailMinChars: 3,
  emailMaxChars: 320,
  scopesPerDeviceRequest: 64,
  clientIdChars: 200,
  auditPageMax: 100,
  previousKeyVersions: 5,
  outboundHeaders: 128,
  outboundRequestBytes: 16 * MIB,
  outboundResponseMaxBytes: 16 * MIB,
});

/**
 * The bounds of one lifetime: seconds, or the name of another lifetime ("that lifetime's value").
 *
 * @example
 * const bound: LifetimeBound = [1, 'sessionAbsoluteSeconds'];
 */
export type LifetimeBound = readonly [min: number | keyof IdentityLifetimes, max: number | keyof IdentityLifetimes];

/**
 * Lifetime bounds in seconds (`identity-model.md` §3); a key name means "that other lifetime".
 *
 * @example
 * LIFETIME_BOUNDS.challengeSeconds; // [30, 600]
 */
export const LIFETIME_BOUNDS: Readonly<Record<keyof IdentityLifetimes, LifetimeBound>> = Object.freeze({
  sessionAbsoluteSeconds: [1, 90 * DAY],
  sessionIdleSeconds: [1, 'sessionAbsoluteSeconds'],
  touchIntervalSeconds: [0, 'sessionIdleSeconds'],
  sessionCacheSeconds: [0, 60],
  challengeSeconds: [30, 600],
  stepUpWindowSeconds: [1, 900],
  adminRecoveryTicketSeconds: ['challengeSeconds', 3600],
  restrictedSessionSeconds: [1, 1800],
  invitationSeconds: [1, 365 * DAY],
  deviceGrantSeconds: [1, 1800],
  devicePollingIntervalSeconds: [5, 300],
  deviceAccessTokenSeconds: [1, 3600],
  deviceTokenFamilySeconds: [1, 90 * DAY],
  refreshRetrySeconds: [0, 60],
  serviceCredentialMaxSeconds: [1, 90 * DAY],
  serviceCredentialSeconds: [1, 'serviceCredentialMaxSeconds'],
  serviceCredentialRotationOverlapSeconds: [0, DAY],
  federationCsrfCookieSeconds: [30, 600],
  federationTransactionSeconds: [30, 900],
  federationClockSkewSeconds: [0, 300],
});

/**
 * Configurable limit bounds (`identity-model.md` §4).
 *
 * @example
 * LIMIT_BOUNDS.jsonBodyBytes; // [4096, 4194304]
 */
export const LIMIT_BOUNDS: Readonly<Record<keyof IdentityLimits, readonly [number, number]>> = Object.freeze({
  jsonBodyBytes: [4 * KIB, 4 * MIB],
  formBodyBytes: [KIB, 64 * KIB],
  scimBodyBytes: [KIB, 4 * MIB],
  outboundResponseBytes: [KIB, 16 * MIB],
  auditPageSizeDefault: [1, 100],
  auditPurgeBatchSize: [1, 500],
  auditExportMaxEvents: [1, 10_000_000],
});

/**
 * Rate-limit policy bounds (`identity-http.md` §10).
 *
 * @example
 * RATE_LIMIT_BOUNDS.limit; // [1, 10000]
 */
export const RATE_LIMIT_BOUNDS = Object.freeze({ limit: [1, 10_000] as const, windowSeconds: [1, 86_400] as const });

/**
 * Every bound of the configuration in one place: the validators enforce these and the README's
 * options table (`npm run docs:options`) shows them. Ranges are inclusive `[min, max]`; a lifetime
 * bound may name another lifetime.
 *
 * @example
 * IDENTITY_CONFIG_BOUNDS.maintenance.batchSize; // [1, 5000]
 */
export const IDENTITY_CONFIG_BOUNDS = Object.freeze({
  lifetimes: LIFETIME_BOUNDS,
  limits: LIMIT_BOUNDS,
  rateLimits: RATE_LIMIT_BOUNDS,
  audit: Object.freeze({ retentionDays: [1, 3650] as const }),
  maintenance: Object.freeze({
    intervalSeconds: [30, DAY] as const,
    batchSize: [1, 5000] as const,
    maxBatchesPerRun: [1, 1000] as const,
  }),
  /** Options whose value outside the range turns the feature off (`maintenance.intervalSeconds: 0`: no timer). */
  offValues: Object.freeze({ 'maintenance.intervalSeconds': 0 }),
  storageNamespace: Object.freeze({ pattern: '^[a-z][a-z0-9_-]{2,63}$' }),
  requestIdHeader: Object.freeze({ maxChars: 100 }),
  secrets: Object.freeze({ minBytes: MIN_SECRET_BYTES, previousVersions: MAX_PREVIOUS_KEY_VERSIONS }),
});
