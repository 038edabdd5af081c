import type { KeyRingReferences } from '../runtime/key-ring.resolver.js';
import type { IdentityLifetimes, IdentityLimits } from './identity-bounds.config.js';

/**
 * Deployment environment; drives which insecure settings are refused.
 *
 * @example
 * const environment: IdentityEnvironment = 'production';
 */
export type IdentityEnvironment = 'development' | 'test' | 'staging' | 'production';

/**
 * Who may create new accounts (`identity-model.md` §5.4); `open` is development-only.
 *
 * @default 'invitation_only'
 * @example
 * const policy: RegistrationPolicy = 'admin_only';
 */
export type RegistrationPolicy = 'invitation_only' | 'admin_only' | 'disabled' | 'open';

/**
 * Rate-limit policies of `identity-http.md` §10.
 *
 * @example
 * const policy: RateLimitPolicyName = 'passkey_auth_start';
 */
export type RateLimitPolicyName =
  | 'bootstrap'
  | 'invitation_enroll'
  | 'recovery_code'
  | 'admin_ticket_redeem'
  | 'passkey_auth_start'
  | 'passkey_auth_finish'
  | 'oauth_token'
  | 'device_user_code'
  | 'device_code_holder';

/**
 * A fixed-window limit: `limit` 1..10 000 requests per `windowSeconds` 1..86 400.
 *
 * @example
 * const policy: RateLimitPolicyConfig = { limit: 5, windowSeconds: 60 };
 */
export interface RateLimitPolicyConfig {
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * Secret references (`<scheme>:<name>[@vN]`, e.g. `env:TESSERA_PRODUCTION_SESSION_PEPPER@v2`).
 * Every reference is distinct and its name contains the environment name as a separate word
 * (`_`/`-`/`.`/`/`-delimited, case-insensitive) and no other environment name.
 *
 * @example
 * secrets: {
 *   sessionPepper: { current: 'env:TESSERA_PRODUCTION_SESSION_PEPPER@v2', previous: ['env:TESSERA_PRODUCTION_SESSION_PEPPER'] },
 *   recoveryPepper: { current: 'env:TESSERA_PRODUCTION_RECOVERY_PEPPER' },
 *   devicePepper: { current: 'env:TESSERA_PRODUCTION_DEVICE_PEPPER' },
 *   servicePepper: { current: 'env:TESSERA_PRODUCTION_SERVICE_PEPPER' },
 *   auditKey: 'env:TESSERA_PRODUCTION_AUDIT_KEY',
 *   encryptionKey: 'env:TESSERA_PRODUCTION_ENCRYPTION_KEY',
 *   signingKey: 'env:TESSERA_PRODUCTION_SIGNING_KEY',
 * }
 */
export interface IdentitySecretsConfig {
  /** Keys the digests of session tokens. */
  readonly sessionPepper: KeyRingReferences;
  /** Keys the digests of recovery codes and invitation tokens. */
  readonly recoveryPepper: KeyRingReferences;
  /** Keys the digests of device-flow codes and tokens. */
  readonly devicePepper: KeyRingReferences;
  /** Keys the digests of service credentials. */
  readonly servicePepper: KeyRingReferences;
  /** Keys audit pseudonyms and rate-limit bucket keys. */
  readonly auditKey: string;
  /** Encryption key of the federation and OAuth families; resolved and checked at start. */
  readonly encryptionKey: string;
  /** Signing key of the federation and OAuth families; resolved and checked at start. */
  readonly signingKey: string;
}

/**
 * The session cookie (`identity-http.md` §9.1). HttpOnly cannot be disabled.
 *
 * @example
 * sessionCookie: { name: '__Secure-app_session', domain: 'example.com' }
 */
export interface SessionCookieConfig {
  /** An HTTP token; `__Host-` needs `secure`, path `/` and no domain; `__Secure-` needs `secure`. @default '__Host-tessera_session' */
  readonly name: string;
  /** Required in staging/production, with `sameSite: 'none'` and with a `__Host-`/`__Secure-` name. @default true */
  readonly secure: boolean;
  /** Always `true`; `false` is refused. @default true */
  readonly httpOnly: true;
  /** `'none'` needs `secure`. @default 'lax' */
  readonly sameSite: 'strict' | 'lax' | 'none';
  /** Must be the RP ID or under it; forbidden with `__Host-`. @default undefined (host-only) */
  readonly domain?: string;
  /** Starts with `/`; no spaces, controls or `;`. @default '/' */
  readonly path: string;
}

/**
 * How the client address and scheme/host are determined (`identity-http.md` §9.2). Behind
 * trusted proxies, `X-Forwarded-For` and RFC 7239 `Forwarded` (`for=`) are walked right to left,
 * skipping trusted addresses (`ip:port` and `[v6]:port` accepted); the first untrusted hop is the
 * client. When a request carries both header families they must agree, or the request is
 * attributed to the direct peer with the direct scheme and host; proxies should write one family
 * and strip the other.
 *
 * @example
 * forwarding: { mode: 'trusted_cidrs', trustedCidrs: ['10.0.0.0/8'] }
 */
export interface ForwardingConfig {
  /** `direct_only`: the TCP peer is the client and forwarding headers are ignored; `trusted_cidrs`: they count when sent by `trustedCidrs`. @default 'direct_only' */
  readonly mode: 'direct_only' | 'trusted_cidrs';
  /** Proxies whose `X-Forwarded-*` / `Forwarded` headers count; empty unless `trusted_cidrs`. @default [] */
  readonly trustedCidrs: readonly string[];
}

/**
 * Capability allowlists for device scopes and service-credential scopes.
 *
 * @example
 * capabilities: { device: ['package.publish'], service: ['content.read'] }
 */
export interface CapabilityAllowlists {
  /** Capabilities a device-flow client may ask for. @default [] */
  readonly device: readonly string[];
  /** Capabilities service credentials may carry; never identity-owned ones. @default [] */
  readonly service: readonly string[];
}

/**
 * Audit recording options.
 *
 * @example
 * audit: { userAgent: 'omit', retentionDays: 30 }
 */
export interface AuditConfig {
  /** Whether audit events keep the client's user agent as a keyed pseudonym or not at all. @default 'omit' */
  readonly userAgent: 'omit' | 'pseudonymize';
  /** Events older than this are deleted by `npm run audit:purge`. @default 90; 1..3650 */
  readonly retentionDays: number;
}

/**
 * The maintenance task (expired challenges, rate-limit buckets, replay receipts and federation
 * transactions purged in bounded batches), run by every instance on a timer under one PostgreSQL
 * advisory lock, so one instance at a time does the work.
 *
 * @example
 * maintenance: { intervalSeconds: 600, batchSize: 1000, maxBatchesPerRun: 10 }
 */
export interface MaintenanceConfig {
  /** Seconds between runs; `0` turns the timer off (run `npm run maintenance` from cron instead). @default 300; 0 or 30..86400 */
  readonly intervalSeconds: number;
  /** Rows deleted per table per batch (one short transaction). @default 500; 1..5000 */
  readonly batchSize: number;
  /** Batches one timed run may take before it yields to the next tick. @default 20; 1..1000 */
  readonly maxBatchesPerRun: number;
}

/**
 * `IdentityModule` configuration as written by the application (`identity-model.md` §7.3);
 * optional sections take their defaults from `resolveIdentityConfig`.
 *
 * @example
 * const config: IdentityConfig = {
 *   environment: 'development',
 *   publicBaseUrl: 'http://localhost:3000',
 *   rp: { id: 'localhost', name: 'Tessera' },
 *   secrets: devSecrets,
 * };
 */
export interface IdentityConfig {
  /** Deployment environment: staging and production refuse the insecure settings development allows. */
  environment: IdentityEnvironment;
  /** Exact origin the identity authority is served from; must be in `allowedOrigins`. */
  publicBaseUrl: string;
  /** Exact origins (scheme, host, port) allowed for WebAuthn and unsafe requests; HTTPS except loopback in development/test. @default [publicBaseUrl] */
  allowedOrigins?: readonly string[];
  /** The WebAuthn relying party passkeys are bound to. */
  rp: {
    /** Lowercase domain without scheme, port or path; every origin's host is it or under it; a registrable domain in staging/production. */
    id: string;
    /** Shown by authenticators; 1..200 characters without control characters. */
    name: string;
  };
  /** Who may create new accounts; `open` is development-only. */
  registrationPolicy?: RegistrationPolicy;
  /** Creating the first owner with `POST /identity/v1/bootstrap` (404 once retired). */
  bootstrap?: {
    /** `pending` needs `secretRef`; `retired` forbids it. */
    lifecycle: 'pending' | 'retired';
    /** Reference to the bootstrap secret (16..512 characters), e.g. `env:TESSERA_PRODUCTION_BOOTSTRAP_SECRET`. */
    secretRef?: string;
  };
  /** Secret references, resolved by the runtime's secret resolver at start. */
  secrets: IdentitySecretsConfig;
  /** Lifetimes in seconds. */
  lifetimes?: Partial<IdentityLifetimes>;
  /** Size limits in bytes and page sizes. */
  limits?: Partial<IdentityLimits>;
  /** The session cookie. */
  sessionCookie?: Partial<SessionCookieConfig>;
  /** How the client address, scheme and host are determined behind proxies. */
  forwarding?: Partial<ForwardingConfig>;
  /** Prefix of the identity storage marker; contains the environment name as a word. @default `tessera_<environment>` */
  storageNamespace?: string;
  /** Capability allowlists for device scopes and service-credential scopes. */
  capabilities?: Partial<CapabilityAllowlists>;
  /** Audit recording. */
  audit?: Partial<AuditConfig>;
  /** The maintenance task purging expired rows. */
  maintenance?: Partial<MaintenanceConfig>;
  /** Per-policy overrides; `false` disables a policy (development/test only). */
  rateLimits?: Partial<Record<RateLimitPolicyName, RateLimitPolicyConfig | false>>;
  /** Header carrying the request id: a well-formed client value is kept, otherwise one is generated; set on every response. @default 'X-Request-ID' */
  requestIdHeader?: string;
  /** What backs the store; PGlite is refused in staging/production. @default { kind: 'pglite' } */
  store?: { kind: 'postgresql' | 'pglite' };
  /**
   * Serve the API's OpenAPI 3.1 document at `GET /identity/v1/openapi.json` (404 when off).
   * @default `true` in development and test, `false` in staging and production
   */
  openApi?: boolean;
}

/**
 * The configuration with every default applied (frozen), as services read it.
 *
 * @example
 * const config: ResolvedIdentityConfig = validateIdentityConfig(resolveIdentityConfig(input));
 */
export interface ResolvedIdentityConfig {
  readonly environment: IdentityEnvironment;
  readonly publicBaseUrl: string;
  readonly allowedOrigins: readonly string[];
  readonly rp: { readonly id: string; readonly name: string };
  readonly registrationPolicy: RegistrationPolicy;
  readonly bootstrap: { readonly lifecycle: 'pending' | 'retired'; readonly secretRef?: string };
  readonly secrets: IdentitySecretsConfig;
  readonly lifetimes: IdentityLifetimes;
  readonly limits: IdentityLimits;
  readonly sessionCookie: SessionCookieConfig;
  readonly forwarding: ForwardingConfig;
  readonly storageNamespace: string;
  readonly capabilities: CapabilityAllowlists;
  readonly audit: AuditConfig;
  readonly maintenance: MaintenanceConfig;
  readonly rateLimits: Readonly<Record<RateLimitPolicyName, RateLimitPolicyConfig | false>>;
  readonly requestIdHeader: string;
  readonly store: { readonly kind: 'postgresql' | 'pglite' };
  readonly openApi: boolean;
}
