/**
 * The software WebAuthn authenticator and its CBOR toolkit, importable without jest (benchmarks
 * load this file under plain node; the package index loads the jest conformance suite).
 *
 * @example
 * import { SoftwareAuthenticator } from '@tessera/identity-testing/webauthn';
 */
export {
  AuthenticatorFlag,
  encodeAttestedCredentialData,
  encodeAuthenticatorData,
  rpIdHashOf,
} from './authenticator-data.js';
export type { AuthenticatorDataParts } from './authenticator-data.js';
export { CborRaw, cborDeeplyNested, cborHead, compareCanonicalKeys, encodeCbor } from './cbor.js';
export type { CborArgumentWidth, CborEncodeOptions, CborValue } from './cbor.js';
export { encodeClientDataJSON } from './client-data.js';
export { CoseAlgorithm, generateCoseKeyPair, signWithCoseKey } from './cose-key.js';
export type { CoseAlgorithmId, CoseKeyPair } from './cose-key.js';
export { SoftwareAuthenticator } from './software-authenticator.js';
export { SoftwareAuthenticatorError } from './software-authenticator.errors.js';
export type { SoftwareAuthenticatorErrorCode } from './software-authenticator.errors.js';
export type { SoftwareCreationOptions } from './software-authenticator.js';
export type {
  AssertionOverrides,
  AuthenticatorDataOverrides,
  ClientDataOverrides,
  CounterMode,
  CreateCredentialCall,
  CredentialJsonOverrides,
  GetAssertionCall,
  JsonValue,
  RegistrationOverrides,
  SoftwareAuthenticatorOptions,
  SoftwareCredential,
} from './software-authenticator.options.js';
