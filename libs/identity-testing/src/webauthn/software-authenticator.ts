import { Buffer } from 'node:buffer';
import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import type {
  AuthenticationExtensionsClientOutputs,
  AuthenticationResponseJSON,
  AuthenticatorAttachment,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  PublicKeyCredentialType,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { buildAuthenticatorData, encodeAttestedCredentialData } from './authenticator-data.js';
import { encodeCbor, type CborValue } from './cbor.js';
import { encodeClientDataJSON } from './client-data.js';
import { CoseAlgorithm, generateCoseKeyPair, signWithCoseKey, type CoseAlgorithmId } from './cose-key.js';
import { SoftwareAuthenticatorError } from './software-authenticator.errors.js';
import type {
  CreateCredentialCall,
  CredentialJsonOverrides,
  GetAssertionCall,
  SoftwareAuthenticatorOptions,
  SoftwareCredential,
} from './software-authenticator.options.js';

/**
 * Registration options as the server sends them: only `challenge` and `user` are required (the RP
 * ID defaults to the origin's host name, the algorithms to ES256).
 */
export type SoftwareCreationOptions = Pick<PublicKeyCredentialCreationOptionsJSON, 'challenge' | 'user'> &
  Partial<PublicKeyCredentialCreationOptionsJSON>;

interface StoredCredential {
  readonly id: Uint8Array;
  readonly rpId: string;
  readonly userHandle: Uint8Array;
  signCount: number;
  backupEligible: boolean;
  backedUp: boolean;
  readonly algorithm: CoseAlgorithmId;
  readonly privateKey: KeyObject;
  readonly publicKey: Uint8Array<ArrayBuffer>;
  readonly sequence: number;
}

const ALL_ALGORITHMS: readonly CoseAlgorithmId[] = Object.values(CoseAlgorithm);
const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes: Uint8Array): Uint8Array => createHash('sha256').update(bytes).digest();

/**
 * A software passkey authenticator plus the browser-side client: resident credentials with
 * node:crypto keys (the first offered of ES256, EdDSA and RS256, or of `options.algorithms`), `none` attestation, UP and UV always performed, counters and
 * backup flags, producing the JSON that `@simplewebauthn/browser` would post — and per-call
 * overrides that break exactly one property, for attack tests. No browser, no jest: benchmarks can
 * import it under plain node.
 *
 * @example
 * const authenticator = new SoftwareAuthenticator();
 * const credential = authenticator.createCredential(registrationOptions, { origin: 'http://localhost:3000' });
 * const assertion = authenticator.getAssertion(authenticationOptions, { origin: 'http://localhost:3000' });
 * const replay = authenticator.getAssertion(authenticationOptions, { origin, overrides: { clearFlags: AuthenticatorFlag.UV } });
 */
export class SoftwareAuthenticator {
  private readonly held = new Map<string, StoredCredential>();
  private sequence = 0;

  constructor(private readonly options: SoftwareAuthenticatorOptions = {}) {
    const length = options.credentialIdLength ?? 32;
    if (!Number.isInteger(length) || length < 16 || length > 32) {
      throw new RangeError(`credentialIdLength must be an integer in 16..32, got ${length}`);
    }
    const algorithms = options.algorithms ?? ALL_ALGORITHMS;
    if (algorithms.length === 0 || algorithms.some((alg) => !ALL_ALGORITHMS.includes(alg)))
      throw new RangeError(`algorithms must be a non-empty subset of ${ALL_ALGORITHMS.join(', ')}`);
  }

  /**
   * `navigator.credentials.create()`: makes a resident credential for `options.rp.id` (or the
   * origin's host) and `options.user.id`, and returns the registration response JSON.
   *
   * @example
   * const response = authenticator.createCredential(options, { origin, overrides: { transports: ['usb', 'quantum'] } });
   */
  createCredential(options: SoftwareCreationOptions, call: CreateCredentialCall): RegistrationResponseJSON {
    const overrides = call.overrides ?? {};
    const rpId = options.rp?.id ?? new URL(call.origin).hostname;
    if (!overrides.ignoreExcludeCredentials) {
      const excluded = (options.excludeCredentials ?? []).find((d) => this.held.get(d.id)?.rpId === rpId);
      if (excluded !== undefined)
        throw new SoftwareAuthenticatorError('InvalidStateError', `credential ${excluded.id} is excluded`);
    }
    const algorithm = overrides.alg ?? this.chooseAlgorithm(options);
    const key = generateCoseKeyPair(algorithm);
    const credential: StoredCredential = {
      id: overrides.credentialId ?? this.newCredentialId(),
      rpId,
      userHandle: Buffer.from(options.user.id, 'base64url'),
      signCount: 0,
      backupEligible: overrides.backupEligible ?? this.options.backupEligible ?? false,
      backedUp: overrides.backedUp ?? this.options.backedUp ?? false,
      algorithm,
      privateKey: key.privateKey,
      publicKey: key.cosePublicKey,
      sequence: (this.sequence += 1),
    };
    this.held.set(b64url(credential.id), credential);

    const clientDataJSON = encodeClientDataJSON('webauthn.create', options.challenge, call.origin, overrides);
    const authData = buildAuthenticatorData(
      this.dataDefaults(credential, overrides.cosePublicKey ?? credential.publicKey, true, credential.signCount),
      overrides,
    );
    const format = overrides.attestationFormat ?? 'none';
    const attStmt: CborValue =
      overrides.attStmt ??
      (format === 'packed'
        ? {
            alg: algorithm,
            sig: signWithCoseKey(algorithm, credential.privateKey, Buffer.concat([authData, sha256(clientDataJSON)])),
          }
        : {});
    const attestationObject =
      overrides.attestationObject ?? encodeCbor({ fmt: overrides.fmt ?? format, attStmt, authData });
    return {
      ...this.credentialJson(credential, overrides, { credProps: { rk: true } }),
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: [...(overrides.transports ?? this.options.transports ?? ['internal'])],
      },
    };
  }

  /**
   * `navigator.credentials.get()`: signs with the resident credential for `options.rpId` (or the
   * origin's host) — among `allowCredentials` when that is non-empty, the newest when several
   * match, or exactly `call.credentialId` — and returns the authentication response JSON.
   *
   * @example
   * const response = authenticator.getAssertion(options, { origin, overrides: { tamperSignature: true } });
   */
  getAssertion(options: PublicKeyCredentialRequestOptionsJSON, call: GetAssertionCall): AuthenticationResponseJSON {
    const overrides = call.overrides ?? {};
    const rpId = options.rpId ?? new URL(call.origin).hostname;
    const credential = this.chooseCredential(options, rpId, call.credentialId);
    if (this.counterMode() === 'increment') credential.signCount += 1;

    const clientDataJSON = encodeClientDataJSON('webauthn.get', options.challenge, call.origin, overrides);
    const authenticatorData = buildAuthenticatorData(
      { ...this.dataDefaults(credential, credential.publicKey, false, credential.signCount), rpId },
      overrides,
    );
    let signature = overrides.signature;
    if (signature === undefined) {
      signature = signWithCoseKey(
        credential.algorithm,
        credential.privateKey,
        Buffer.concat([authenticatorData, sha256(clientDataJSON)]),
      );
      if (overrides.tamperSignature) {
        signature = Uint8Array.from(signature);
        signature[signature.length - 1]! ^= 0x01;
      }
    }
    const userHandle = overrides.userHandle === undefined ? b64url(credential.userHandle) : overrides.userHandle;
    return {
      ...this.credentialJson(credential, overrides, {}),
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
    };
  }

  /**
   * Snapshots of every held credential, oldest first.
   *
   * @example
   * const [passkey] = authenticator.credentials();
   */
  credentials(): SoftwareCredential[] {
    return [...this.held.values()].sort((a, b) => a.sequence - b.sequence).map((c) => this.snapshot(c));
  }

  /**
   * A snapshot of one held credential, or `undefined`.
   *
   * @example
   * authenticator.credential(response.id)?.signCount;
   */
  credential(credentialId: string): SoftwareCredential | undefined {
    const stored = this.held.get(credentialId);
    return stored === undefined ? undefined : this.snapshot(stored);
  }

  /**
   * Forgets a credential; `false` when it was not held.
   *
   * @example
   * authenticator.removeCredential(response.id);
   */
  removeCredential(credentialId: string): boolean {
    return this.held.delete(credentialId);
  }

  /**
   * Sets the stored counter (e.g. rewind it to simulate a cloned authenticator).
   *
   * @example
   * authenticator.setSignCount(response.id, 1);
   */
  setSignCount(credentialId: string, signCount: number): void {
    if (!Number.isInteger(signCount) || signCount < 0 || signCount > 0xffffffff)
      throw new RangeError(`signCount ${signCount} is not a uint32`);
    this.require(credentialId).signCount = signCount;
  }

  /**
   * Changes a credential's backup flags for later ceremonies (any combination, e.g. a BE flip).
   *
   * @example
   * authenticator.setBackupState(response.id, { backupEligible: true, backedUp: true });
   */
  setBackupState(
    credentialId: string,
    state: { readonly backupEligible?: boolean; readonly backedUp?: boolean },
  ): void {
    const credential = this.require(credentialId);
    credential.backupEligible = state.backupEligible ?? credential.backupEligible;
    credential.backedUp = state.backedUp ?? credential.backedUp;
  }

  private chooseAlgorithm(options: SoftwareCreationOptions): CoseAlgorithmId {
    const offered = options.pubKeyCredParams ?? [{ type: 'public-key', alg: CoseAlgorithm.ES256 }];
    const supported: readonly number[] = this.options.algorithms ?? ALL_ALGORITHMS;
    const match = offered.find((p) => p.type === 'public-key' && supported.includes(p.alg));
    if (match === undefined)
      throw new SoftwareAuthenticatorError('NotSupportedError', 'no offered algorithm is supported');
    return match.alg as CoseAlgorithmId;
  }

  private chooseCredential(
    options: PublicKeyCredentialRequestOptionsJSON,
    rpId: string,
    credentialId: string | undefined,
  ): StoredCredential {
    if (credentialId !== undefined) return this.require(credentialId);
    const allowed = new Set((options.allowCredentials ?? []).map((d) => d.id));
    const candidates = [...this.held.entries()]
      .filter(([id, c]) => c.rpId === rpId && (allowed.size === 0 || allowed.has(id)))
      .map(([, c]) => c);
    const newest = candidates.sort((a, b) => b.sequence - a.sequence)[0];
    if (newest === undefined)
      throw new SoftwareAuthenticatorError('NotAllowedError', `no credential for RP ID ${rpId}`);
    return newest;
  }

  private credentialJson(
    credential: StoredCredential,
    overrides: CredentialJsonOverrides,
    extensionResults: AuthenticationExtensionsClientOutputs,
  ): Omit<RegistrationResponseJSON, 'response'> {
    const id = b64url(credential.id);
    const attachment = overrides.authenticatorAttachment === undefined ? 'platform' : overrides.authenticatorAttachment;
    return {
      id: overrides.id ?? id,
      rawId: overrides.rawId ?? id,
      // Overrides may put off-contract strings here on purpose; the declared type is the honest one.
      type: (overrides.credentialType ?? 'public-key') as PublicKeyCredentialType,
      ...(attachment === null ? {} : { authenticatorAttachment: attachment as AuthenticatorAttachment }),
      clientExtensionResults: (overrides.clientExtensionResults ??
        extensionResults) as AuthenticationExtensionsClientOutputs,
    };
  }

  private dataDefaults(
    credential: StoredCredential,
    cosePublicKey: Uint8Array,
    includeAttested: boolean,
    storedCount: number,
  ) {
    return {
      rpId: credential.rpId,
      signCount: this.counterMode() === 'zero' ? 0 : storedCount,
      backupEligible: credential.backupEligible,
      backedUp: credential.backedUp,
      attestedCredentialData: encodeAttestedCredentialData(
        this.options.aaguid ?? new Uint8Array(16),
        credential.id,
        cosePublicKey,
      ),
      includeAttestedCredentialData: includeAttested,
    };
  }

  private counterMode() {
    return this.options.counterMode ?? 'increment';
  }

  private newCredentialId(): Uint8Array {
    const length = this.options.credentialIdLength ?? 32;
    return Uint8Array.from((this.options.randomBytes ?? randomBytes)(length));
  }

  private require(credentialId: string): StoredCredential {
    const credential = this.held.get(credentialId);
    if (credential === undefined)
      throw new SoftwareAuthenticatorError('NotAllowedError', `credential ${credentialId} is not held`);
    return credential;
  }

  private snapshot(c: StoredCredential): SoftwareCredential {
    return {
      credentialId: b64url(c.id),
      rpId: c.rpId,
      userHandle: b64url(c.userHandle),
      signCount: c.signCount,
      backupEligible: c.backupEligible,
      backedUp: c.backedUp,
      algorithm: c.algorithm,
      publicKey: Uint8Array.from(c.publicKey),
      privateKey: c.privateKey,
      createdSequence: c.sequence,
    };
  }
}
