import { describe, expect, it } from '@jest/globals';
import { IdentityConfigError, type IdentityConfig, type IdentityConfigRule } from '@tessera/identity';
import {
  bootIdentity,
  expectNoSecretIn,
  HARDENED_ORIGIN,
  hardenedConfig,
  useMigratedIdentityDatabase,
  identityForRoot,
  runtimeWith,
  secretRef,
  secretValues,
  type HardenedEnvironment,
} from './identity-startup.support.js';

/** One representative violation per configuration rule family (identity-model §7.3). */
interface RuleCase {
  readonly name: string;
  readonly environment: HardenedEnvironment;
  readonly overrides: Partial<IdentityConfig>;
  readonly rule: IdentityConfigRule;
  /** The actionable part: the option path and what to do. */
  readonly message: RegExp;
}

const CASES: readonly RuleCase[] = [
  {
    name: 'an allowed origin outside the RP ID',
    environment: 'production',
    overrides: { allowedOrigins: [HARDENED_ORIGIN, 'https://app.example.org'] },
    rule: 'origin_outside_rp_id',
    message: /allowedOrigins\[1\] must have a host equal to or under rp\.id/,
  },
  {
    name: 'an origin that is not exact (trailing slash)',
    environment: 'production',
    overrides: { allowedOrigins: [HARDENED_ORIGIN, 'https://app.example.com/'] },
    rule: 'origin_not_exact',
    message: /allowedOrigins\[1\] must be an exact origin .*\(keep only the scheme, host and port\)/,
  },
  {
    name: 'publicBaseUrl missing from allowedOrigins',
    environment: 'staging',
    overrides: { allowedOrigins: ['https://app.example.com'] },
    rule: 'public_base_url',
    message: /publicBaseUrl must also be listed in allowedOrigins/,
  },
  {
    name: 'plain http:// outside loopback development',
    environment: 'staging',
    overrides: { publicBaseUrl: 'http://id.example.com', allowedOrigins: ['http://id.example.com'] },
    rule: 'origin_insecure',
    message: /allowedOrigins\[0\] must use https:\/\/ and a non-loopback host in staging/,
  },
  {
    name: 'a loopback RP ID',
    environment: 'production',
    overrides: { rp: { id: 'localhost', name: 'Tessera' } },
    rule: 'rp_invalid',
    message: /rp\.id must be a registrable domain in production/,
  },
  {
    name: 'a session cookie without Secure',
    environment: 'production',
    overrides: { sessionCookie: { name: 'tessera_session', secure: false } },
    rule: 'session_cookie',
    message: /sessionCookie\.secure must be true in production/,
  },
  {
    name: 'a __Host- session cookie with a Domain',
    environment: 'staging',
    overrides: { sessionCookie: { domain: 'example.com' } },
    rule: 'session_cookie',
    message: /__Host- prefix, which forbids a domain; remove sessionCookie\.domain or use the __Secure- prefix/,
  },
  {
    name: 'one secret reference used twice',
    environment: 'production',
    overrides: {
      secrets: { ...hardenedConfig('production').secrets, encryptionKey: secretRef('production', 'AUDIT_KEY') },
    },
    rule: 'secret_reference_duplicate',
    message: /secrets\.encryptionKey names the same secret as secrets\.auditKey; every secret must be distinct/,
  },
  {
    name: "another environment's secret reference",
    environment: 'production',
    overrides: { secrets: { ...hardenedConfig('production').secrets, auditKey: secretRef('staging', 'AUDIT_KEY') } },
    rule: 'secret_reference_environment',
    message: /secrets\.auditKey names another environment \(staging\); .*"PRODUCTION"/,
  },
  {
    name: "another environment's storage namespace",
    environment: 'staging',
    overrides: { storageNamespace: 'tessera_production' },
    rule: 'storage_namespace',
    message: /storageNamespace must contain the word "staging" .*"tessera_staging"/,
  },
  {
    name: 'open registration',
    environment: 'production',
    overrides: { registrationPolicy: 'open' },
    rule: 'registration_policy',
    message: /"open" is allowed in development only; use "invitation_only", "admin_only" or "disabled" in production/,
  },
  {
    name: 'a pending bootstrap without a secret',
    environment: 'production',
    overrides: { bootstrap: { lifecycle: 'pending' } },
    rule: 'bootstrap_secret_required',
    message:
      /bootstrap\.lifecycle "pending" needs bootstrap\.secretRef \(e\.g\. "env:TESSERA_PRODUCTION_BOOTSTRAP_SECRET"\)/,
  },
  {
    name: 'a retired bootstrap that keeps its secret',
    environment: 'production',
    overrides: { bootstrap: { lifecycle: 'retired', secretRef: secretRef('production', 'BOOTSTRAP_SECRET') } },
    rule: 'bootstrap_secret_forbidden',
    message: /"retired" forbids bootstrap\.secretRef; remove the reference and the secret/,
  },
  {
    name: 'a lifetime out of bounds',
    environment: 'production',
    overrides: { lifetimes: { challengeSeconds: 20 } },
    rule: 'lifetime_bounds',
    message: /lifetimes\.challengeSeconds must be an integer between 30 and 600 seconds \(got a number out of range\)/,
  },
  {
    name: 'a lifetime above the one it is bounded by',
    environment: 'staging',
    overrides: { lifetimes: { sessionAbsoluteSeconds: 3600, sessionIdleSeconds: 7200 } },
    rule: 'lifetime_bounds',
    message:
      /lifetimes\.sessionIdleSeconds must be an integer between 1 and 3600 \(≤ lifetimes\.sessionAbsoluteSeconds\)/,
  },
  {
    name: 'a limit out of bounds',
    environment: 'production',
    overrides: { limits: { jsonBodyBytes: 1024 } },
    rule: 'limit_bounds',
    message: /limits\.jsonBodyBytes must be an integer between 4096 and 4194304 \(got a number out of range\)/,
  },
  {
    name: 'a disabled rate-limit policy',
    environment: 'production',
    overrides: { rateLimits: { bootstrap: false } },
    rule: 'rate_limit_disabled',
    message: /rateLimits\.bootstrap cannot be disabled in production/,
  },
  {
    name: 'an embedded PGlite store',
    environment: 'staging',
    overrides: { store: { kind: 'pglite' } },
    rule: 'store_kind',
    message: /embedded PGlite is refused in staging; configure a PostgreSQL server \(DATABASE_URL\)/,
  },
];

describe('identity configuration rules fail startup closed in staging/production (IdentityModule over Nest)', () => {
  const database = useMigratedIdentityDatabase();

  it.each(CASES)('refuses $name in $environment with $rule', async ({ environment, overrides, rule, message }) => {
    const secrets = secretValues(environment);
    const outcome = await bootIdentity({
      database: { orm: database().orm },
      identity: identityForRoot(hardenedConfig(environment, overrides), runtimeWith(secrets)),
    });
    expect(outcome.app).toBeUndefined();
    expect(outcome.error).toBeInstanceOf(IdentityConfigError);
    const error = outcome.error as IdentityConfigError;
    expect(error.rule).toBe(rule);
    expect(error.message).toMatch(/^Invalid identity configuration: /);
    expect(error.message).toMatch(message);
    expectNoSecretIn(outcome, secrets);
  });

  it.each(['staging', 'production'] as const)(
    'passes validation and every self-test with the base configuration in %s (the control: only the override fails)',
    async (environment) => {
      const secrets = secretValues(environment);
      const outcome = await bootIdentity({
        database: { orm: database().orm },
        identity: identityForRoot(hardenedConfig(environment), runtimeWith(secrets)),
      });
      // This shared database was never provisioned, so the environment marker is what stops it.
      expect(outcome.error).toMatchObject({ name: 'IdentityStartupError', check: 'environment_marker' });
    },
  );
});
