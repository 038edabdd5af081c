/**
 * `@tessera/identity-testing`: the shared `IdentityStore` conformance suite every store
 * implementation runs (on PGlite and on a PostgreSQL server), row factories and a seeding helper
 * for identity tests, the frozen clock, and a software WebAuthn authenticator (also importable
 * without jest from `webauthn/index.js`, for benchmarks).
 *
 * @example
 * import { runIdentityStoreConformance } from '@tessera/identity-testing';
 * runIdentityStoreConformance({ name: 'MikroOrmIdentityStore', createStore, createRateLimiter });
 */
export { runIdentityStoreConformance } from './identity-store.conformance.js';
export { TEST_MARKER } from './conformance/conformance.world.js';
export type { IdentityStoreConformanceOptions, IdentityStoreHarness } from './conformance/conformance.world.js';
export {
  newTestInvitation,
  newTestSession,
  newTestUser,
  testAuditEvent,
  testBase64Url,
  testDigest,
  testRateLimitKey,
  testUuidV7,
  testVariedAuditEvents,
} from './identity-test.rows.js';
export type { TestSessionMethod } from './identity-test.rows.js';
export { newTestChallenge, newTestCredential, newTestRecoveryCodes } from './identity-test.credentials.js';
export { IdentityTestRows } from './identity-test.seed.js';
export { seedFederation } from './conformance/federation-standing.cases.js';
export type { TestRow } from './identity-test.seed.js';
export { FrozenClock } from '@tessera/identity';
export {
  AuthenticatorFlag,
  CborRaw,
  CoseAlgorithm,
  SoftwareAuthenticator,
  SoftwareAuthenticatorError,
  cborDeeplyNested,
  cborHead,
  encodeCbor,
  rpIdHashOf,
} from './webauthn/index.js';
export type {
  AssertionOverrides,
  CborValue,
  CoseAlgorithmId,
  CounterMode,
  CreateCredentialCall,
  GetAssertionCall,
  RegistrationOverrides,
  SoftwareAuthenticatorOptions,
  SoftwareCreationOptions,
  SoftwareCredential,
} from './webauthn/index.js';
