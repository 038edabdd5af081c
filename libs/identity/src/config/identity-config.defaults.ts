import type { IdentityLifetimes, IdentityLimits } from './identity-bounds.config.js';
import type {
  AuditConfig,
  MaintenanceConfig,
  CapabilityAllowlists,
  ForwardingConfig,
  IdentityConfig,
  IdentityEnvironment,
  RateLimitPolicyConfig,
  RateLimitPolicyName,
  RegistrationPolicy,
  ResolvedIdentityConfig,
  SessionCookieConfig,
} from './identity.config.js';
import { fail, isHardened, kindOf } from './identity-config.rules.js';
import { copyArray, deepFreeze, mergeWithArrays, readSection } from './identity-config.shape.js';

const DAY = 86_400;
const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * The four environments.
 *
 * @example
 * IDENTITY_ENVIRONMENTS.includes(process.env.NODE_ENV as IdentityEnvironment);
 */
export const IDENTITY_ENVIRONMENTS: readonly IdentityEnvironment[] = Object.freeze([
  'development',
  'test',
  'staging',
  'production',
]);

/**
 * Default lifetimes (`identity-model.md` §3).
 *
 * @example
 * const idle = config.lifetimes.sessionIdleSeconds ?? DEFAULT_IDENTITY_LIFETIMES.sessionIdleSeconds;
 */
export const DEFAULT_IDENTITY_LIFETIMES: IdentityLifetimes = Object.freeze({
  sessionAbsoluteSeconds: 30 * DAY,
  sessionIdleSeconds: DAY,
  touchIntervalSeconds: 60,
  sessionCacheSeconds: 5,
  challengeSeconds: 300,
  stepUpWindowSeconds: 300,
  adminRecoveryTicketSeconds: 900,
  restrictedSessionSeconds: 900,
  invitationSeconds: 7 * DAY,
  deviceGrantSeconds: 600,
  devicePollingIntervalSeconds: 5,
  deviceAccessTokenSeconds: 900,
  deviceTokenFamilySeconds: 30 * DAY,
  refreshRetrySeconds: 30,
  serviceCredentialSeconds: 30 * DAY,
  serviceCredentialMaxSeconds: 90 * DAY,
  serviceCredentialRotationOverlapSeconds: 600,
  federationCsrfCookieSeconds: 300,
  federationTransactionSeconds: 300,
  federationClockSkewSeconds: 30,
});

/**
 * Default configurable limits (`identity-model.md` §4).
 *
 * @example
 * DEFAULT_IDENTITY_LIMITS.jsonBodyBytes; // 1048576
 */
export const DEFAULT_IDENTITY_LIMITS: IdentityLimits = Object.freeze({
  jsonBodyBytes: MIB,
  formBodyBytes: 32 * KIB,
  scimBodyBytes: MIB,
  outboundResponseBytes: 4 * MIB,
  auditPageSizeDefault: 50,
  auditPurgeBatchSize: 250,
  auditExportMaxEvents: 1_000_000,
});

/**
 * Default rate-limit policies (`identity-http.md` §10).
 *
 * @example
 * DEFAULT_RATE_LIMITS.recovery_code; // { limit: 5, windowSeconds: 60 }
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitPolicyName, RateLimitPolicyConfig>> = Object.freeze({
  bootstrap: Object.freeze({ limit: 5, windowSeconds: 900 }),
  invitation_enroll: Object.freeze({ limit: 10, windowSeconds: 900 }),
  recovery_code: Object.freeze({ limit: 5, windowSeconds: 60 }),
  admin_ticket_redeem: Object.freeze({ limit: 5, windowSeconds: 60 }),
  passkey_auth_start: Object.freeze({ limit: 60, windowSeconds: 60 }),
  passkey_auth_finish: Object.freeze({ limit: 30, windowSeconds: 60 }),
  oauth_token: Object.freeze({ limit: 60, windowSeconds: 60 }),
  device_user_code: Object.freeze({ limit: 20, windowSeconds: 600 }),
  device_code_holder: Object.freeze({ limit: 30, windowSeconds: 60 }),
});

/**
 * Default session cookie (`identity-http.md` §9.1).
 *
 * @example
 * DEFAULT_SESSION_COOKIE.name; // '__Host-tessera_session'
 */
export const DEFAULT_SESSION_COOKIE: SessionCookieConfig = Object.freeze({
  name: '__Host-tessera_session',
  secure: true,
  httpOnly: true,
  sameSite: 'lax',
  path: '/',
});

const DEFAULT_FORWARDING: ForwardingConfig = Object.freeze({ mode: 'direct_only', trustedCidrs: Object.freeze([]) });
const DEFAULT_CAPABILITIES: CapabilityAllowlists = Object.freeze({
  device: Object.freeze([]),
  service: Object.freeze([]),
});
const DEFAULT_AUDIT: AuditConfig = Object.freeze({ userAgent: 'omit', retentionDays: 90 });
const DEFAULT_MAINTENANCE: MaintenanceConfig = Object.freeze({
  intervalSeconds: 300,
  batchSize: 500,
  maxBatchesPerRun: 20,
});
/**
 * Default request-id header name.
 *
 * @example
 * exchange.headerValues(config.requestIdHeader ?? DEFAULT_REQUEST_ID_HEADER);
 */
export const DEFAULT_REQUEST_ID_HEADER = 'X-Request-ID';

/**
 * Every default of `IdentityConfig` in one place (what `resolveIdentityConfig` applies and the
 * README's options table, `npm run docs:options`, shows). Two defaults derive from the input and
 * are not listed: `allowedOrigins` (`[publicBaseUrl]`) and `storageNamespace` (`tessera_<environment>`).
 *
 * @example
 * IDENTITY_CONFIG_DEFAULTS.audit.retentionDays; // 90
 */
export const IDENTITY_CONFIG_DEFAULTS = Object.freeze({
  registrationPolicy: 'invitation_only' as RegistrationPolicy,
  bootstrap: Object.freeze({ lifecycle: 'retired' as const }),
  lifetimes: DEFAULT_IDENTITY_LIFETIMES,
  limits: DEFAULT_IDENTITY_LIMITS,
  sessionCookie: DEFAULT_SESSION_COOKIE,
  forwarding: DEFAULT_FORWARDING,
  capabilities: DEFAULT_CAPABILITIES,
  audit: DEFAULT_AUDIT,
  maintenance: DEFAULT_MAINTENANCE,
  rateLimits: DEFAULT_RATE_LIMITS,
  requestIdHeader: DEFAULT_REQUEST_ID_HEADER,
  store: Object.freeze({ kind: 'pglite' as const }),
});

const TOP_LEVEL_KEYS = [
  'environment',
  'publicBaseUrl',
  'allowedOrigins',
  'rp',
  'registrationPolicy',
  'bootstrap',
  'secrets',
  'lifetimes',
  'limits',
  'sessionCookie',
  'forwarding',
  'storageNamespace',
  'capabilities',
  'audit',
  'maintenance',
  'rateLimits',
  'requestIdHeader',
  'store',
  'openApi',
] as const;
const SECRET_KEYS = [
  'sessionPepper',
  'recoveryPepper',
  'devicePepper',
  'servicePepper',
  'auditKey',
  'encryptionKey',
  'signingKey',
];
const RING_KEYS = ['sessionPepper', 'recoveryPepper', 'devicePepper', 'servicePepper'] as const;

/**
 * Applies every default (the one place defaults live) and checks the configuration's shape:
 * a known environment, objects where sections are expected, no unknown options anywhere. The
 * result is frozen; pass it to `validateIdentityConfig` for the security rules.
 *
 * @example
 * const config = validateIdentityConfig(resolveIdentityConfig({ environment: 'development', ... }));
 */
export function resolveIdentityConfig(input: IdentityConfig): ResolvedIdentityConfig {
  const root = readSection(input, 'config', TOP_LEVEL_KEYS, true)!;
  const environment = root['environment'] as IdentityEnvironment;
  if (!IDENTITY_ENVIRONMENTS.includes(environment)) {
    fail(
      'invalid_option',
      `environment must be one of ${IDENTITY_ENVIRONMENTS.join(', ')} (got ${kindOf(environment)})`,
    );
  }
  const rp = readSection(root['rp'], 'rp', ['id', 'name'], true)!;
  const secrets = readSection(root['secrets'], 'secrets', SECRET_KEYS, true)!;
  for (const ring of RING_KEYS) readSection(secrets[ring], `secrets.${ring}`, ['current', 'previous'], true);
  const bootstrap =
    readSection(root['bootstrap'], 'bootstrap', ['lifecycle', 'secretRef'], false) ??
    IDENTITY_CONFIG_DEFAULTS.bootstrap;
  const publicBaseUrl = root['publicBaseUrl'] as string;
  const rateLimits = readSection(root['rateLimits'], 'rateLimits', Object.keys(DEFAULT_RATE_LIMITS), false) ?? {};
  const ratePolicies = Object.fromEntries(
    Object.entries(DEFAULT_RATE_LIMITS).map(([name, fallback]) => {
      const value = rateLimits[name];
      if (value === undefined || value === false) return [name, value ?? fallback];
      return [name, { ...fallback, ...readSection(value, `rateLimits.${name}`, ['limit', 'windowSeconds'], true) }];
    }),
  );
  return deepFreeze({
    environment,
    publicBaseUrl,
    allowedOrigins: copyArray(root['allowedOrigins'], 'allowedOrigins') ?? [publicBaseUrl],
    rp: { id: rp['id'], name: rp['name'] },
    registrationPolicy: root['registrationPolicy'] ?? IDENTITY_CONFIG_DEFAULTS.registrationPolicy,
    bootstrap: { ...bootstrap },
    secrets: Object.fromEntries(
      SECRET_KEYS.map((key) => {
        const value = secrets[key];
        if (!RING_KEYS.includes(key as (typeof RING_KEYS)[number])) return [key, value];
        const ring = value as Record<string, unknown>;
        const previous = copyArray(ring['previous'], `secrets.${key}.previous`);
        return [key, previous === undefined ? { current: ring['current'] } : { current: ring['current'], previous }];
      }),
    ),
    lifetimes: {
      ...DEFAULT_IDENTITY_LIFETIMES,
      ...readSection(root['lifetimes'], 'lifetimes', Object.keys(DEFAULT_IDENTITY_LIFETIMES), false),
    },
    limits: {
      ...DEFAULT_IDENTITY_LIMITS,
      ...readSection(root['limits'], 'limits', Object.keys(DEFAULT_IDENTITY_LIMITS), false),
    },
    sessionCookie: {
      ...DEFAULT_SESSION_COOKIE,
      ...readSection(
        root['sessionCookie'],
        'sessionCookie',
        ['name', 'secure', 'httpOnly', 'sameSite', 'domain', 'path'],
        false,
      ),
    },
    forwarding: mergeWithArrays(
      readSection(root['forwarding'], 'forwarding', ['mode', 'trustedCidrs'], false),
      DEFAULT_FORWARDING,
      'forwarding',
    ),
    storageNamespace: root['storageNamespace'] ?? `tessera_${environment}`,
    capabilities: mergeWithArrays(
      readSection(root['capabilities'], 'capabilities', ['device', 'service'], false),
      DEFAULT_CAPABILITIES,
      'capabilities',
    ),
    audit: { ...DEFAULT_AUDIT, ...readSection(root['audit'], 'audit', ['userAgent', 'retentionDays'], false) },
    maintenance: {
      ...DEFAULT_MAINTENANCE,
      ...readSection(root['maintenance'], 'maintenance', Object.keys(DEFAULT_MAINTENANCE), false),
    },
    rateLimits: ratePolicies,
    requestIdHeader: root['requestIdHeader'] ?? DEFAULT_REQUEST_ID_HEADER,
    store: { ...IDENTITY_CONFIG_DEFAULTS.store, ...readSection(root['store'], 'store', ['kind'], false) },
    openApi: root['openApi'] ?? !isHardened(environment),
  }) as unknown as ResolvedIdentityConfig;
}
