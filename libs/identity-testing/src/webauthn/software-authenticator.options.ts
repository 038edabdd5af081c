import type { KeyObject } from 'node:crypto';
import type { CborValue } from './cbor.js';
import type { CoseAlgorithmId } from './cose-key.js';

/**
 * A JSON value, for client-data members and client extension results crafted by tests.
 *
 * @example
 * const extra: JsonValue = { androidPackageName: 'com.example' };
 */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * How the stored signature counter moves: `increment` adds 1 per assertion (registration reports
 * the current value, 0 for a new credential); `zero` always reports 0 (as many passkey providers do).
 */
export type CounterMode = 'increment' | 'zero';

/** Options of the {@link SoftwareAuthenticator} constructor. */
export interface SoftwareAuthenticatorOptions {
  /** @default 'increment' */
  readonly counterMode?: CounterMode;
  /** Backup eligibility (BE) of new credentials. @default false */
  readonly backupEligible?: boolean;
  /** Backup state (BS) of new credentials. @default false */
  readonly backedUp?: boolean;
  /** Transports reported at registration. @default ['internal'] */
  readonly transports?: readonly string[];
  /** The 16-byte AAGUID in attested credential data. @default 16 zero bytes */
  readonly aaguid?: Uint8Array;
  /** Length of new credential ids, 16..32. @default 32 */
  readonly credentialIdLength?: number;
  /** Source of credential-id bytes; pass a seeded one for deterministic ids. @default node:crypto randomBytes */
  readonly randomBytes?: (size: number) => Uint8Array;
  /**
   * The algorithms it can create keys for; a registration takes the first offered one among them
   * (e.g. `[CoseAlgorithm.RS256]` for a Windows Hello TPM). @default all of {@link CoseAlgorithm}
   */
  readonly algorithms?: readonly CoseAlgorithmId[];
}

/** Changes to the collected client data; each is applied exactly as given. */
export interface ClientDataOverrides {
  /** The `type` member, e.g. `'webauthn.get'` in a registration. */
  readonly type?: string;
  /** The `challenge` member instead of the options' challenge. */
  readonly challenge?: string;
  /** The `origin` member instead of the call's origin. */
  readonly origin?: string;
  /** The `crossOrigin` member; `null` leaves it out. @default false */
  readonly crossOrigin?: boolean | null;
  /** A `topOrigin` member (absent unless given). */
  readonly topOrigin?: string;
  /** Members appended after the standard ones (a duplicate name overwrites the standard member). */
  readonly clientDataExtra?: { readonly [key: string]: JsonValue };
  /** The exact clientDataJSON (a string is its UTF-8 text); every other client-data override is ignored. */
  readonly clientDataJSON?: string | Uint8Array;
}

/** Changes to the authenticator data; each is applied exactly as given. */
export interface AuthenticatorDataOverrides {
  /** Hash this RP ID into rpIdHash instead of the ceremony's RP ID. */
  readonly rpId?: string;
  /** The exact 32-byte rpIdHash (wins over `rpId`). */
  readonly rpIdHash?: Uint8Array;
  /** The exact flags byte; `setFlags`, `clearFlags` and the derived bits are then ignored. */
  readonly flags?: number;
  /** Bits OR-ed into the derived flags, e.g. `AuthenticatorFlag.RFU1` or `AuthenticatorFlag.BS`. */
  readonly setFlags?: number;
  /** Bits cleared from the derived flags (after `setFlags`), e.g. `AuthenticatorFlag.UV`. */
  readonly clearFlags?: number;
  /** The counter written on the wire (0..2³²−1); the stored counter still moves as usual. */
  readonly signCount?: number;
  /** Authenticator extension outputs, CBOR-encoded after the attested data; sets ED (a `CborRaw` for exact bytes). */
  readonly extensions?: CborValue;
  /** Whether attested credential data (and AT) is present. @default true for registration, false for assertion */
  readonly attestedCredentialData?: boolean;
  /** The exact authenticatorData; every other authenticator-data override is ignored. Signatures cover these bytes. */
  readonly authenticatorData?: Uint8Array;
}

/** Changes to the credential JSON around the response. */
export interface CredentialJsonOverrides {
  /** The `id` member instead of base64url(credential id). */
  readonly id?: string;
  /** The `rawId` member instead of base64url(credential id). */
  readonly rawId?: string;
  /** The credential `type` member. @default 'public-key' */
  readonly credentialType?: string;
  /** `authenticatorAttachment`; `null` leaves it out. @default 'platform' */
  readonly authenticatorAttachment?: string | null;
  /** `clientExtensionResults`. @default {credProps: {rk: true}} on registration, {} on assertion */
  readonly clientExtensionResults?: { readonly [key: string]: JsonValue };
}

/** Every override a registration accepts (for attacks; each applied exactly). */
export interface RegistrationOverrides
  extends ClientDataOverrides, AuthenticatorDataOverrides, CredentialJsonOverrides {
  /** Use this credential id (e.g. a duplicate of one already registered); a held credential with it is replaced. */
  readonly credentialId?: Uint8Array;
  /** Create the key with this algorithm even if the options do not offer it. */
  readonly alg?: CoseAlgorithmId;
  /** The exact COSE public key placed in attested credential data (the credential keeps its real key). */
  readonly cosePublicKey?: Uint8Array;
  /** Attestation format: `packed` produces a self-attestation `{alg, sig}`. @default 'none' */
  readonly attestationFormat?: 'none' | 'packed';
  /** The exact `fmt` text (wins over `attestationFormat`). */
  readonly fmt?: string;
  /** The exact `attStmt` value (wins over the one `attestationFormat` builds). */
  readonly attStmt?: CborValue;
  /** The exact attestationObject; `fmt`, `attStmt` and authenticator-data overrides are then ignored. */
  readonly attestationObject?: Uint8Array;
  /** `response.transports`, e.g. `['usb', 'quantum']`. @default the authenticator's transports */
  readonly transports?: readonly string[];
  /** Backup eligibility of this credential. @default the authenticator's */
  readonly backupEligible?: boolean;
  /** Backup state of this credential. @default the authenticator's */
  readonly backedUp?: boolean;
  /** Register even when `excludeCredentials` names a held credential. @default false */
  readonly ignoreExcludeCredentials?: boolean;
}

/** Every override an assertion accepts (for attacks; each applied exactly). */
export interface AssertionOverrides extends ClientDataOverrides, AuthenticatorDataOverrides, CredentialJsonOverrides {
  /** Flip one bit of the signature's last byte (keeps the DER frame, breaks the signature). */
  readonly tamperSignature?: boolean;
  /** The exact signature bytes (wins over `tamperSignature`). */
  readonly signature?: Uint8Array;
  /** `response.userHandle` as base64url; `null` leaves it out. @default the credential's user handle */
  readonly userHandle?: string | null;
}

/** The second argument of {@link SoftwareAuthenticator.createCredential}. */
export interface CreateCredentialCall {
  /** The page origin, e.g. `http://localhost:3000`; the RP ID defaults to its host name. */
  readonly origin: string;
  readonly overrides?: RegistrationOverrides;
}

/** The second argument of {@link SoftwareAuthenticator.getAssertion}. */
export interface GetAssertionCall {
  /** The page origin, e.g. `http://localhost:3000`; the RP ID defaults to its host name. */
  readonly origin: string;
  /** Use this held credential (base64url id), whatever the RP ID and `allowCredentials` say. */
  readonly credentialId?: string;
  readonly overrides?: AssertionOverrides;
}

/** A snapshot of one resident credential held by a {@link SoftwareAuthenticator}. */
export interface SoftwareCredential {
  /** base64url credential id. */
  readonly credentialId: string;
  readonly rpId: string;
  /** base64url user handle (the options' `user.id`). */
  readonly userHandle: string;
  readonly signCount: number;
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
  readonly algorithm: CoseAlgorithmId;
  /** The COSE_Key registered with the relying party. */
  readonly publicKey: Uint8Array<ArrayBuffer>;
  readonly privateKey: KeyObject;
  /** When it was created, in creation order (later wins when several match an assertion). */
  readonly createdSequence: number;
}
