const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * Lifetimes in seconds (`identity-model.md` §3). Defaults and bounds in `DEFAULT_IDENTITY_LIFETIMES`.
 *
 * @example
 * lifetimes: { sessionIdleSeconds: 8 * 3600 }
 */
export interface IdentityLifetimes {
  /** @default 2 592 000 (30 d); ≤ 90 d */
  readonly sessionAbsoluteSeconds: number;
  /** @default 86 400 (24 h); ≤ absolute */
  readonly sessionIdleSeconds: number;
  /** @default 60; 0..idle */
  readonly touchIntervalSeconds: number;
  /**
   * How long one process may reuse a validated session without reading it again (`0` = every
   * request reads the store). This process's own commands invalidate at once; a change made by
   * another process is seen after at most this long. @default 0; 0..5
   */
  readonly sessionCacheSeconds: number;
  /** WebAuthn ceremony. @default 300; 30..600 */
  readonly challengeSeconds: number;
  /** Recent-passkey window (STEP). @default 300; ≤ 900 */
  readonly stepUpWindowSeconds: number;
  /** @default 900; ≥ challenge, ≤ 3600 */
  readonly adminRecoveryTicketSeconds: number;
  /** Recovery / bootstrap restricted session. @default 900; ≤ 1800 */
  readonly restrictedSessionSeconds: number;
  /** @default 604 800 (7 d); ≤ 365 d */
  readonly invitationSeconds: number;
  /** @default 600; ≤ 1800 */
  readonly deviceGrantSeconds: number;
  /** @default 5; 5..300 */
  readonly devicePollingIntervalSeconds: number;
  /** @default 900; ≤ 3600 */
  readonly deviceAccessTokenSeconds: number;
  /** Device token family / refresh token. @default 2 592 000; ≤ 90 d */
  readonly deviceTokenFamilySeconds: number;
  /** Default service-credential lifetime. @default 2 592 000; ≤ max */
  readonly serviceCredentialSeconds: number;
  /** Longest service-credential lifetime a request may ask for. @default 7 776 000; ≤ 90 d */
  readonly serviceCredentialMaxSeconds: number;
  /** @default 600; 0..86 400 */
  readonly serviceCredentialRotationOverlapSeconds: number;
  /** Federation `__Host-tessera_csrf` cookie. @default 300; 30..600 */
  readonly federationCsrfCookieSeconds: number;
}

/**
 * Configurable size limits (`identity-model.md` §4); fixed ones are in `IDENTITY_FIXED_LIMITS`.
 *
 * @example
 * limits: { jsonBodyBytes: 64 * 1024 }
 */
export interface IdentityLimits {
  /** @default 1 MiB; 4 KiB..4 MiB */
  readonly jsonBodyBytes: number;
  /** OAuth form bodies. @default 32 KiB; 1..64 KiB */
  readonly formBodyBytes: number;
  /** @default 1 MiB; 1 KiB..4 MiB */
  readonly scimBodyBytes: number;
  /** Outbound identity HTTP responses. @default 4 MiB; 1 KiB..16 MiB */
  readonly outboundResponseBytes: number;
  /** Audit page size when the query names none. @default 50; 1..100 */
  readonly auditPageSizeDefault: number;
  /** @default 250; 1..500 */
  readonly auditPurgeBatchSize: number;
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
