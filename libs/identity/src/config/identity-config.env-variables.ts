// The variables of `identityConfigFromEnv` (identity-config.env.ts) as data: the documentation
// table and the mapping of validator messages back to variables.

/**
 * One environment variable read by `identityConfigFromEnv`.
 *
 * @example
 * IDENTITY_ENV_VARIABLES.filter((v) => v.required).map((v) => v.name);
 */
export interface IdentityEnvVariable {
  readonly name: string;
  /** `true` when the configuration cannot be built without it. */
  readonly required: boolean;
  /** The `IdentityConfig` option it sets. */
  readonly option: string;
  /** What it holds, and its default when optional. */
  readonly description: string;
  /** A production example (secret variables hold references, never values). */
  readonly example: string;
}

const ENV_KEY_RINGS = [
  ['sessionPepper', 'SESSION_PEPPER', 'session tokens and CSRF tokens'],
  ['recoveryPepper', 'RECOVERY_PEPPER', 'recovery codes, invitation tokens and admin recovery tickets'],
  ['devicePepper', 'DEVICE_PEPPER', 'device codes, user codes and device access/refresh tokens'],
  ['servicePepper', 'SERVICE_PEPPER', 'service credentials'],
] as const;
const ENV_SINGLE_KEYS = [
  ['auditKey', 'AUDIT_KEY', 'audit pseudonyms and rate-limit bucket keys'],
  ['encryptionKey', 'ENCRYPTION_KEY', 'reserved for encrypting stored values; resolved and checked at start'],
  ['signingKey', 'SIGNING_KEY', 'reserved for signing; resolved and checked at start'],
] as const;
/** How a secret reference variable must read (for messages). */
export const REFERENCE_FORM = 'an env:NAME[@vN] or file:/absolute/path[@vN] reference';

/**
 * Every variable `identityConfigFromEnv` reads, in documentation order (the table of
 * `docs/deployment.md` is checked against this list).
 *
 * @example
 * for (const variable of IDENTITY_ENV_VARIABLES) console.log(variable.name, variable.required);
 */
export const IDENTITY_ENV_VARIABLES: readonly IdentityEnvVariable[] = Object.freeze([
  {
    name: 'TESSERA_ENVIRONMENT',
    required: true,
    option: 'environment',
    description: '`development`, `test`, `staging` or `production`; when unset, `NODE_ENV` is used',
    example: 'production',
  },
  {
    name: 'TESSERA_PUBLIC_BASE_URL',
    required: true,
    option: 'publicBaseUrl',
    description: "The exact public origin users reach (the proxy's `https://` origin, no path)",
    example: 'https://id.example.com',
  },
  {
    name: 'TESSERA_ALLOWED_ORIGINS',
    required: false,
    option: 'allowedOrigins',
    description: 'Comma-separated exact origins allowed to call the API; default: the public base URL only',
    example: 'https://id.example.com,https://app.example.com',
  },
  {
    name: 'TESSERA_RP_ID',
    required: true,
    option: 'rp.id',
    description:
      'WebAuthn relying-party ID: the public host or a registrable parent; passkeys are bound to it, never change it',
    example: 'example.com',
  },
  {
    name: 'TESSERA_RP_NAME',
    required: false,
    option: 'rp.name',
    description: 'Name shown by authenticators; default `Tessera`',
    example: 'Example Corp',
  },
  {
    name: 'TESSERA_REGISTRATION_POLICY',
    required: false,
    option: 'registrationPolicy',
    description: '`invitation_only` (default), `admin_only` or `disabled`',
    example: 'invitation_only',
  },
  {
    name: 'TESSERA_TRUSTED_PROXY_CIDRS',
    required: false,
    option: 'forwarding',
    description:
      'Comma-separated CIDRs of the TLS-terminating proxies whose `X-Forwarded-*` / `Forwarded` headers count (mode `trusted_cidrs`); unset: `direct_only`',
    example: '10.0.0.0/8',
  },
  {
    name: 'TESSERA_STORAGE_NAMESPACE',
    required: false,
    option: 'storageNamespace',
    description: 'Must match the provisioned marker; default `tessera_<environment>`',
    example: 'tessera_production',
  },
  ...ENV_KEY_RINGS.flatMap(([option, suffix, use]): IdentityEnvVariable[] => [
    {
      name: `TESSERA_${suffix}_REF`,
      required: true,
      option: `secrets.${option}.current`,
      description: `Reference to the current ${suffix.toLowerCase().replace('_', ' ')} (HMAC of ${use}); \`@vN\` marks its version`,
      example: `env:TESSERA_PRODUCTION_${suffix}@v2`,
    },
    {
      name: `TESSERA_${suffix}_PREVIOUS_REFS`,
      required: false,
      option: `secrets.${option}.previous`,
      description:
        'Comma-separated references to previous versions (at most 5, each below the current one), kept during a rotation',
      example: `env:TESSERA_PRODUCTION_${suffix}`,
    },
  ]),
  ...ENV_SINGLE_KEYS.map(([option, suffix, use]): IdentityEnvVariable => ({
    name: `TESSERA_${suffix}_REF`,
    required: true,
    option: `secrets.${option}`,
    description: `Reference to the ${suffix.toLowerCase().replace('_', ' ')} (${use})`,
    example: `file:/run/secrets/tessera_production_${suffix.toLowerCase()}`,
  })),
  {
    name: 'TESSERA_BOOTSTRAP_SECRET_REF',
    required: false,
    option: 'bootstrap',
    description:
      'Reference to the one-time bootstrap secret: set → bootstrap `pending` (create the first owner), unset → `retired`; remove it once the owner exists',
    example: 'env:TESSERA_PRODUCTION_BOOTSTRAP_SECRET',
  },
  {
    name: 'TESSERA_AUDIT_RETENTION_DAYS',
    required: false,
    option: 'audit.retentionDays',
    description: 'Days audit events are kept (1..3650); default 90',
    example: '365',
  },
  {
    name: 'TESSERA_MAINTENANCE_INTERVAL_SECONDS',
    required: false,
    option: 'maintenance.intervalSeconds',
    description: 'Seconds between maintenance runs (0 = off, run it from cron; else 30..86400); default 300',
    example: '300',
  },
  {
    name: 'DATABASE_URL',
    required: false,
    option: 'store',
    description:
      'PostgreSQL server URL (store `postgresql`); required in staging/production, unset elsewhere → embedded PGlite',
    example: 'postgres://tessera@db.internal:5432/tessera_production',
  },
]);

/** Option path prefixes of validator messages → the variable that sets the option (longest first). */
export const OPTION_VARIABLES: readonly (readonly [string, string])[] = [
  ...ENV_KEY_RINGS.flatMap(([option, suffix]) => [
    [`secrets.${option}.previous`, `TESSERA_${suffix}_PREVIOUS_REFS`] as const,
    [`secrets.${option}`, `TESSERA_${suffix}_REF`] as const,
  ]),
  ...ENV_SINGLE_KEYS.map(([option, suffix]) => [`secrets.${option}`, `TESSERA_${suffix}_REF`] as const),
  ['bootstrap', 'TESSERA_BOOTSTRAP_SECRET_REF'],
  ['publicBaseUrl', 'TESSERA_PUBLIC_BASE_URL'],
  ['allowedOrigins', 'TESSERA_ALLOWED_ORIGINS'],
  ['rp.id', 'TESSERA_RP_ID'],
  ['rp.name', 'TESSERA_RP_NAME'],
  ['registrationPolicy', 'TESSERA_REGISTRATION_POLICY'],
  ['forwarding', 'TESSERA_TRUSTED_PROXY_CIDRS'],
  ['storageNamespace', 'TESSERA_STORAGE_NAMESPACE'],
  ['audit.retentionDays', 'TESSERA_AUDIT_RETENTION_DAYS'],
  ['maintenance.intervalSeconds', 'TESSERA_MAINTENANCE_INTERVAL_SECONDS'],
  ['embedded PGlite', 'DATABASE_URL'],
];
