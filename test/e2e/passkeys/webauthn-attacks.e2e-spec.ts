import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import {
  AuthenticatorFlag,
  CborRaw,
  CoseAlgorithm,
  SoftwareAuthenticator,
  cborDeeplyNested,
  cborHead,
  encodeCbor,
  type AssertionOverrides,
  type RegistrationOverrides,
} from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post, signIn, type TestSession } from '../../support/passkey-client.js';
import {
  CLEARED_CEREMONY_COOKIE,
  REGISTRATION_FINISH,
  REGISTRATION_START,
  SIGN_IN_FINISH,
  SIGN_IN_START,
  STEP_UP_FINISH,
  STEP_UP_START,
  bootPasskeyApp,
  challengeOf,
  credentialRows,
  enrollInvitee,
  errorOf,
  expectCeremonyRejected,
  finish,
  freshSession,
  inviteeWithPasskey,
  organizationOf,
  ownerWithPasskey,
  registrationAttempt,
  rejectionsOf,
  rowsOf,
  sessionCount,
  setCookiesOf,
  signInAttempt,
  startCeremony,
  userEpoch,
  type PasskeyUser,
} from './passkey-fixtures.js';

const EVIL = 'https://evil.example';
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** The (r, s) INTEGER contents of a DER ECDSA signature. */
function derIntegers(signature: Buffer): [Buffer, Buffer] {
  const rLength = signature[3]!;
  const r = signature.subarray(4, 4 + rLength);
  const s = signature.subarray(6 + rLength, 6 + rLength + signature[5 + rLength]!);
  return [r, s];
}

const fixed32 = (integer: Buffer) => {
  const trimmed = integer.subarray(integer.length - Math.min(integer.length, 32));
  return Buffer.concat([Buffer.alloc(32 - trimmed.length), trimmed]);
};

/** Re-encodes the response's signature; the signed bytes are unchanged. */
function reencodeSignature(credential: AuthenticationResponseJSON, encode: (der: Buffer) => Buffer): void {
  credential.response.signature = b64(encode(Buffer.from(credential.response.signature, 'base64url')));
}

interface AssertionAttack {
  readonly attack: string;
  readonly reason: string;
  readonly origin?: string;
  readonly overrides?: AssertionOverrides | ((challenge: string) => AssertionOverrides);
  readonly mutate?: (credential: AuthenticationResponseJSON) => void;
}

const ASSERTION_ATTACKS: readonly AssertionAttack[] = [
  { attack: 'signed for another origin', origin: EVIL, reason: 'origin_mismatch' },
  { attack: 'signed for the allowed host on another port', origin: 'http://localhost:3001', reason: 'origin_mismatch' },
  {
    attack: 'whose clientDataJSON repeats a member (non-strict JSON)',
    overrides: (challenge) => ({
      clientDataJSON: `{"type":"webauthn.get","challenge":"${challenge}","origin":"${EVIL}","origin":"http://localhost:3000"}`,
    }),
    reason: 'client_data_invalid',
  },
  {
    attack: 'with token binding present',
    overrides: { clientDataExtra: { tokenBinding: { status: 'present', id: 'AAAA' } } },
    reason: 'client_data_invalid',
  },
  {
    attack: 'carrying attested credential data (AT)',
    overrides: { attestedCredentialData: true },
    reason: 'attested_data_mismatch',
  },
  {
    attack: 'whose id names another credential than rawId',
    mutate: (credential) => {
      credential.rawId = b64(Buffer.alloc(32, 1));
    },
    reason: 'credential_id_mismatch',
  },
  {
    attack: 'collected cross-origin (crossOrigin: true)',
    overrides: { crossOrigin: true },
    reason: 'client_data_invalid',
  },
  {
    attack: 'collected in a frame of another top origin (topOrigin)',
    overrides: { topOrigin: EVIL },
    reason: 'client_data_invalid',
  },
  { attack: 'whose rpIdHash names another RP ID', overrides: { rpId: 'evil.example' }, reason: 'rp_id_hash_mismatch' },
  {
    attack: 'without user verification (UV off)',
    overrides: { clearFlags: AuthenticatorFlag.UV },
    reason: 'user_verification_missing',
  },
  {
    attack: 'without user presence (UP off)',
    overrides: { clearFlags: AuthenticatorFlag.UP },
    reason: 'user_presence_missing',
  },
  {
    attack: 'with reserved flag bit 0x02 set',
    overrides: { setFlags: AuthenticatorFlag.RFU1 },
    reason: 'reserved_flags_set',
  },
  {
    attack: 'with reserved flag bit 0x20 set',
    overrides: { setFlags: AuthenticatorFlag.RFU2 },
    reason: 'reserved_flags_set',
  },
  {
    attack: 'claiming backup state without backup eligibility (BS without BE)',
    overrides: { setFlags: AuthenticatorFlag.BS },
    reason: 'backup_state_without_eligibility',
  },
  {
    attack: 'carrying authenticator extension data (ED)',
    overrides: { extensions: { credProtect: 1 } },
    reason: 'extensions_present',
  },
  {
    attack: 'carrying unexpected clientExtensionResults',
    overrides: { clientExtensionResults: { appid: true } },
    reason: 'unexpected_extension_results',
  },
  { attack: 'with a tampered signature', overrides: { tamperSignature: true }, reason: 'signature_invalid' },
  {
    attack: 'with a raw r‖s (non-DER) signature over the right bytes',
    mutate: (credential) =>
      reencodeSignature(credential, (der) => {
        const [r, s] = derIntegers(der);
        return Buffer.concat([fixed32(r), fixed32(s)]);
      }),
    reason: 'signature_invalid',
  },
  {
    attack: 'with a DER signature whose r INTEGER is not minimally encoded',
    mutate: (credential) =>
      reencodeSignature(credential, (der) => {
        const [r, s] = derIntegers(der);
        const body = Buffer.concat([Buffer.of(0x02, r.length + 1, 0x00), r, Buffer.of(0x02, s.length), s]);
        return Buffer.concat([Buffer.of(0x30, body.length), body]);
      }),
    reason: 'signature_invalid',
  },
  {
    attack: 'with bytes trailing the DER signature',
    mutate: (credential) => reencodeSignature(credential, (der) => Buffer.concat([der, Buffer.of(0x00)])),
    reason: 'signature_invalid',
  },
  {
    attack: 'of the wrong clientData type (webauthn.create)',
    overrides: { type: 'webauthn.create' },
    reason: 'client_data_type_mismatch',
  },
  {
    attack: 'whose clientData challenge is not the ceremony challenge',
    overrides: { challenge: b64(Buffer.alloc(32, 7)) },
    reason: 'challenge_mismatch',
  },
];

interface RegistrationAttack {
  readonly attack: string;
  readonly reason: string;
  readonly origin?: string;
  readonly overrides: RegistrationOverrides;
  readonly mutate?: (credential: RegistrationResponseJSON) => void;
}

/** An EC2 COSE key map (integer keys) with the given members. */
const coseKey = (members: [number, number | Uint8Array][]) => encodeCbor(new Map(members));

const REGISTRATION_ATTACKS: readonly RegistrationAttack[] = [
  { attack: 'created for another origin', origin: EVIL, overrides: {}, reason: 'origin_mismatch' },
  {
    attack: 'collected cross-origin (crossOrigin: true)',
    overrides: { crossOrigin: true },
    reason: 'client_data_invalid',
  },
  {
    attack: 'collected in a frame of another top origin (topOrigin)',
    overrides: { topOrigin: EVIL },
    reason: 'client_data_invalid',
  },
  { attack: 'whose rpIdHash names another RP ID', overrides: { rpId: 'evil.example' }, reason: 'rp_id_hash_mismatch' },
  {
    attack: 'without user verification (UV off)',
    overrides: { clearFlags: AuthenticatorFlag.UV },
    reason: 'user_verification_missing',
  },
  {
    attack: 'without user presence (UP off)',
    overrides: { clearFlags: AuthenticatorFlag.UP },
    reason: 'user_presence_missing',
  },
  {
    attack: 'with reserved flag bit 0x02 set',
    overrides: { setFlags: AuthenticatorFlag.RFU1 },
    reason: 'reserved_flags_set',
  },
  {
    attack: 'with reserved flag bit 0x20 set',
    overrides: { setFlags: AuthenticatorFlag.RFU2 },
    reason: 'reserved_flags_set',
  },
  {
    attack: 'claiming backup state without backup eligibility (BS without BE)',
    overrides: { setFlags: AuthenticatorFlag.BS },
    reason: 'backup_state_without_eligibility',
  },
  {
    attack: 'carrying authenticator extension data (ED)',
    overrides: { extensions: { credProtect: 1 } },
    reason: 'extensions_present',
  },
  {
    attack: 'carrying clientExtensionResults beyond credProps',
    overrides: { clientExtensionResults: { credProps: { rk: true }, largeBlob: { supported: true } } },
    reason: 'unexpected_extension_results',
  },
  {
    attack: 'of the wrong clientData type (webauthn.get)',
    overrides: { type: 'webauthn.get' },
    reason: 'client_data_type_mismatch',
  },
  {
    attack: 'with an RS256 key (ES256 only)',
    overrides: { alg: CoseAlgorithm.RS256 },
    reason: 'public_key_unsupported',
  },
  {
    attack: 'with an EdDSA key (ES256 only)',
    overrides: { alg: CoseAlgorithm.EdDSA },
    reason: 'public_key_unsupported',
  },
  {
    attack: 'with a packed attestation (attestation none only)',
    overrides: { attestationFormat: 'packed' },
    reason: 'attestation_not_none',
  },
  {
    attack: 'whose attestationObject nests CBOR 10 000 levels deep',
    overrides: { attestationObject: cborDeeplyNested(10_000) },
    reason: 'attestation_malformed',
  },
  {
    attack: 'whose attestation statement holds more than 256 CBOR items',
    overrides: { attStmt: Array.from({ length: 300 }, () => 0) },
    reason: 'attestation_malformed',
  },
  {
    attack: 'whose COSE key nests CBOR deeper than 8 levels',
    overrides: { cosePublicKey: cborDeeplyNested(9) },
    reason: 'authenticator_data_malformed',
  },
  {
    attack: 'without attested credential data',
    overrides: { attestedCredentialData: false },
    reason: 'attested_data_mismatch',
  },
  {
    attack: 'whose attestation statement is non-canonical CBOR (non-minimal map head)',
    overrides: { attStmt: new CborRaw(cborHead(5, 0, 1)) },
    reason: 'attestation_malformed',
  },
  {
    attack: 'whose id and rawId name another credential than the attested one',
    overrides: { id: b64(Buffer.alloc(32, 1)), rawId: b64(Buffer.alloc(32, 1)) },
    reason: 'credential_id_mismatch',
  },
  {
    attack: 'whose ES256 public key is not a point on P-256',
    overrides: {
      cosePublicKey: coseKey([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.alloc(32, 1)],
        [-3, Buffer.alloc(32, 2)],
      ]),
    },
    reason: 'public_key_invalid',
  },
  {
    attack: 'whose COSE key carries an extra member',
    overrides: {
      cosePublicKey: coseKey([
        [1, 2],
        [2, Buffer.alloc(4)],
        [3, -7],
        [-1, 1],
        [-2, Buffer.alloc(32, 1)],
        [-3, Buffer.alloc(32, 2)],
      ]),
    },
    reason: 'public_key_unsupported',
  },
  {
    attack: 'declaring publicKeyAlgorithm RS256 for its key',
    overrides: {},
    mutate: (credential) => {
      credential.response.publicKeyAlgorithm = CoseAlgorithm.RS256;
    },
    reason: 'public_key_unsupported',
  },
];

describe('WebAuthn attacks on passkey ceremonies (routes 2–7)', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;
  let organizationId: string;

  beforeAll(async () => {
    identity = await bootPasskeyApp();
    owner = await ownerWithPasskey(identity);
    organizationId = await organizationOf(identity, owner.userId);
  });
  afterAll(async () => identity?.close());

  const credentialVersion = async (userId: string) =>
    (await credentialRows(identity, userId)).map((row) => [row['id'], row['version'], row['sign_count'], row['state']]);

  describe('sign-in assertions (route 5)', () => {
    it.each(ASSERTION_ATTACKS)('rejects an assertion $attack', async ({ origin, overrides, mutate, reason }) => {
      const attempt = await signInAttempt(identity, owner.authenticator, {
        credentialId: owner.credentialId,
        ...(origin ? { origin } : {}),
        ...(overrides ? { overrides } : {}),
      });
      mutate?.(attempt.credential);
      const sessions = await sessionCount(identity, owner.userId);
      const credential = await credentialVersion(owner.userId);
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: reason,
      });
      expect(await sessionCount(identity, owner.userId)).toBe(sessions);
      expect(await credentialVersion(owner.userId)).toEqual(credential);
    });

    it('rejects an assertion whose userHandle is another user’s id (foreign userHandle)', async () => {
      const stranger = await enrollInvitee(identity, organizationId, owner.userId);
      const attempt = await signInAttempt(identity, owner.authenticator, {
        credentialId: owner.credentialId,
        overrides: { userHandle: b64(Buffer.from(stranger.userId, 'utf8')) },
      });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'user_handle_mismatch',
      });
      expect(await sessionCount(identity, stranger.userId)).toBe(1);
    });

    it('rejects an assertion from a passkey the server never registered', async () => {
      const stray = new SoftwareAuthenticator();
      stray.createCredential(
        { challenge: b64(Buffer.alloc(32)), user: { id: b64(Buffer.from(owner.userId)), name: 'x', displayName: 'x' } },
        { origin: 'http://localhost:3000' },
      );
      const attempt = await signInAttempt(identity, stray);
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'credential_not_active',
      });
    });

    it('rejects a valid assertion of a user who is no longer active', async () => {
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId);
      await rowsOf(identity).sql(`update tessera_identity.users set state = 'suspended' where id = ?`, [user.userId]);
      const sessions = await sessionCount(identity, user.userId);
      const attempt = await signInAttempt(identity, user.authenticator, { credentialId: user.credentialId });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'user_not_active',
      });
      expect(await sessionCount(identity, user.userId)).toBe(sessions);
    });

    it('rejects a replayed challenge: the second finish of a consumed ceremony is challenge_invalid', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const sessions = await sessionCount(identity, owner.userId);
      const first = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      expect(first.status).toBe(200);
      const replay = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      expect(errorOf(replay)).toEqual({
        status: 400,
        code: 'challenge_invalid',
        message: 'The challenge is invalid or has expired',
        retryable: false,
      });
      expect(setCookiesOf(replay)).toContain(CLEARED_CEREMONY_COOKIE);
      expect(await sessionCount(identity, owner.userId)).toBe(sessions + 1);
      expect((await challengeOf(identity, attempt.ceremonyId))['state']).toBe('consumed');
    });

    it('rejects a registration ceremony presented to the sign-in finish (challenge from another ceremony type)', async () => {
      const registrant = await freshSession(identity, owner);
      const registration = await startCeremony(identity, REGISTRATION_START, registrant);
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const sessions = await sessionCount(identity, owner.userId);
      const res = await finish(
        identity,
        SIGN_IN_FINISH,
        { ceremonyId: registration.ceremonyId, credential: attempt.credential },
        { cookies: [registration.cookie] },
      );
      expect(errorOf(res)).toMatchObject({ status: 400, code: 'challenge_invalid' });
      expect(await sessionCount(identity, owner.userId)).toBe(sessions);
      // A finish on the wrong route does not touch the other route's ceremony.
      expect((await challengeOf(identity, registration.ceremonyId))['state']).toBe('pending');
    });

    it('rejects a step-up ceremony presented to the sign-in finish (challenge from another ceremony type)', async () => {
      const session = await freshSession(identity, owner);
      const stepUp = await startCeremony(identity, STEP_UP_START, session);
      const assertion = owner.authenticator.getAssertion(stepUp.publicKey as never, {
        origin: 'http://localhost:3000',
        credentialId: owner.credentialId,
      });
      const sessions = await sessionCount(identity, owner.userId);
      const res = await finish(
        identity,
        SIGN_IN_FINISH,
        { ceremonyId: stepUp.ceremonyId, credential: assertion },
        { cookies: [stepUp.cookie] },
      );
      expect(errorOf(res)).toMatchObject({ status: 400, code: 'challenge_invalid' });
      expect(await sessionCount(identity, owner.userId)).toBe(sessions);
      expect((await challengeOf(identity, stepUp.ceremonyId))['state']).toBe('pending');
    });

    it('rejects a sign-in ceremony presented to the step-up and registration finishes', async () => {
      const session = await freshSession(identity, owner);
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const stepUp = await finish(identity, STEP_UP_FINISH, attempt.body, { session, cookies: [attempt.cookie] });
      expect(errorOf(stepUp)).toMatchObject({ status: 400, code: 'challenge_invalid' });
      const registration = await finish(
        identity,
        REGISTRATION_FINISH,
        { ceremonyId: attempt.ceremonyId, credentialName: 'Laptop', credential: attempt.credential },
        { session, cookies: [attempt.cookie] },
      );
      expect(errorOf(registration)).toMatchObject({ status: 400, code: 'challenge_invalid' });
      expect((await challengeOf(identity, attempt.ceremonyId))['state']).toBe('pending');
    });

    it('rejects a finish without the ceremony cookie', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'ceremony_binding',
      });
    });

    it('rejects a finish carrying another ceremony’s cookie', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const other = await startCeremony(identity, SIGN_IN_START);
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [other.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'ceremony_binding',
      });
      expect((await challengeOf(identity, other.ceremonyId))['state']).toBe('pending');
    });

    it('rejects a finish carrying two ceremony cookies', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const other = await startCeremony(identity, SIGN_IN_START);
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie, other.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'ceremony_binding',
      });
    });

    it('consumes the ceremony exactly once for a malformed credential with a parseable ceremonyId', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const { signature: _dropped, ...response } = attempt.credential.response;
      const malformed = await finish(
        identity,
        SIGN_IN_FINISH,
        { ceremonyId: attempt.ceremonyId, credential: { ...attempt.credential, response } },
        { cookies: [attempt.cookie] },
      );
      await expectCeremonyRejected(identity, malformed, attempt.ceremonyId, {
        status: 400,
        code: 'request_invalid',
        failureReason: 'request_invalid',
      });
      const retry = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      expect(errorOf(retry)).toMatchObject({ status: 400, code: 'challenge_invalid' });
      expect(await rejectionsOf(identity, attempt.ceremonyId)).toHaveLength(1);
      expect((await challengeOf(identity, attempt.ceremonyId))['state']).toBe('failed');
    });

    it('consumes the ceremony for a finish body with an unknown member', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const res = await finish(
        identity,
        SIGN_IN_FINISH,
        { ...attempt.body, admin: true },
        { cookies: [attempt.cookie] },
      );
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 400,
        code: 'request_invalid',
        failureReason: 'request_invalid',
      });
    });

    it('consumes nothing when the body names no parseable ceremonyId', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const res = await finish(
        identity,
        SIGN_IN_FINISH,
        { ceremonyId: attempt.ceremonyId.toUpperCase(), credential: attempt.credential },
        { cookies: [attempt.cookie] },
      );
      expect(errorOf(res)).toMatchObject({ status: 400, code: 'request_invalid' });
      expect(setCookiesOf(res)).toContain(CLEARED_CEREMONY_COOKIE);
      expect((await challengeOf(identity, attempt.ceremonyId))['state']).toBe('pending');
      expect(await rejectionsOf(identity, attempt.ceremonyId)).toHaveLength(0);
      const ok = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      expect(ok.status).toBe(200);
    });

    it('expires a sign-in ceremony at its 5-minute TTL: challenge_invalid, state expired, audited', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      identity.clock.advance({ minutes: 5 });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 400,
        code: 'challenge_invalid',
        state: 'expired',
        failureReason: 'webauthn_challenge_expired',
        auditReason: 'webauthn_challenge_expired',
      });
    });

    it('still accepts a sign-in finished one millisecond before the TTL', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      identity.clock.advance({ minutes: 4, seconds: 59, milliseconds: 999 });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      expect(res.status).toBe(200);
      expect((await challengeOf(identity, attempt.ceremonyId))['state']).toBe('consumed');
    });
  });

  describe('counter regression and backup flags', () => {
    it('quarantines a passkey whose signature counter regressed (cloned authenticator): 401, suspected_clone, audited, no session', async () => {
      const victim = await inviteeWithPasskey(identity, organizationId, owner.userId);
      const stored = (await credentialRows(identity, victim.userId))[0]!;
      expect(Number(stored['sign_count'])).toBe(1);
      victim.authenticator.setSignCount(victim.credentialId, 0);
      const sessions = await sessionCount(identity, victim.userId);
      const attempt = await signInAttempt(identity, victim.authenticator, { credentialId: victim.credentialId });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      expect(errorOf(res)).toMatchObject({ status: 401, code: 'invalid_credentials' });
      expect(setCookiesOf(res)).toContain(CLEARED_CEREMONY_COOKIE);
      const [credential] = await credentialRows(identity, victim.userId);
      expect({ state: credential!['state'], signCount: Number(credential!['sign_count']) }).toEqual({
        state: 'suspected_clone',
        signCount: 1,
      });
      const quarantined = await rowsOf(identity).sql(
        `select * from tessera_identity.audit_events where action = 'credential.quarantined' and target_id = ?`,
        [String(credential!['id'])],
      );
      expect(
        quarantined.map((a) => [a['outcome'], a['target_type'], a['actor_type'], a['actor_user_id'], a['reason_code']]),
      ).toEqual([['denied', 'credential', 'user', victim.userId, 'counter_regression']]);
      expect((await challengeOf(identity, attempt.ceremonyId))['state']).toBe('consumed');
      expect(await sessionCount(identity, victim.userId)).toBe(sessions);

      // The genuine authenticator, now ahead again, is refused too: the passkey stays quarantined.
      victim.authenticator.setSignCount(victim.credentialId, 10);
      const again = await signInAttempt(identity, victim.authenticator, { credentialId: victim.credentialId });
      const refused = await finish(identity, SIGN_IN_FINISH, again.body, { cookies: [again.cookie] });
      await expectCeremonyRejected(identity, refused, again.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'credential_not_active',
      });
    });

    it('quarantines on a counter regression during step-up and leaves the session unrotated', async () => {
      const victim = await inviteeWithPasskey(identity, organizationId, owner.userId);
      const session = await freshSession(identity, victim);
      victim.authenticator.setSignCount(victim.credentialId, 1);
      const started = await startCeremony(identity, STEP_UP_START, session);
      const credential = victim.authenticator.getAssertion(started.publicKey as never, {
        origin: 'http://localhost:3000',
        credentialId: victim.credentialId,
      });
      const res = await finish(
        identity,
        STEP_UP_FINISH,
        { ceremonyId: started.ceremonyId, credential },
        { session, cookies: [started.cookie] },
      );
      expect(errorOf(res)).toMatchObject({ status: 401, code: 'invalid_credentials' });
      expect((await credentialRows(identity, victim.userId))[0]!['state']).toBe('suspected_clone');
      expect((await challengeOf(identity, started.ceremonyId))['state']).toBe('consumed');
      const row = await rowsOf(identity).sql('select state, assurance from tessera_identity.sessions where id = ?', [
        session.sessionId,
      ]);
      expect(row).toEqual([{ state: 'active', assurance: 'passkey' }]);
    });

    it('accepts an authenticator that always reports a zero counter', async () => {
      const authenticator = new SoftwareAuthenticator({ counterMode: 'zero' });
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId, authenticator);
      const second = await signIn(identity, authenticator, { credentialId: user.credentialId });
      expect(second.status).toBe(200);
      expect((await credentialRows(identity, user.userId))[0]!['state']).toBe('active');
    });

    it('rejects an assertion that claims backup eligibility the passkey was registered without (BE flip)', async () => {
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId);
      user.authenticator.setBackupState(user.credentialId, { backupEligible: true });
      const attempt = await signInAttempt(identity, user.authenticator, { credentialId: user.credentialId });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'backup_eligibility_changed',
      });
      expect((await credentialRows(identity, user.userId))[0]!['backup_eligible']).toBe(false);
    });

    it('rejects an assertion that drops the backup eligibility the passkey was registered with (BE flip)', async () => {
      const authenticator = new SoftwareAuthenticator({ backupEligible: true, backedUp: true });
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId, authenticator);
      authenticator.setBackupState(user.credentialId, { backupEligible: false, backedUp: false });
      const attempt = await signInAttempt(identity, authenticator, { credentialId: user.credentialId });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'backup_eligibility_changed',
      });
    });

    it('records a change of backup state on an eligible passkey', async () => {
      const authenticator = new SoftwareAuthenticator({ backupEligible: true, backedUp: false });
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId, authenticator);
      expect((await credentialRows(identity, user.userId))[0]!['backed_up']).toBe(false);
      authenticator.setBackupState(user.credentialId, { backedUp: true });
      expect((await signIn(identity, authenticator, { credentialId: user.credentialId })).status).toBe(200);
      const [credential] = await credentialRows(identity, user.userId);
      expect([credential!['backup_eligible'], credential!['backed_up']]).toEqual([true, true]);
    });
  });

  describe('registrations (route 3)', () => {
    /** A throwaway authenticator, so that the owner’s keeps signing with its one registered passkey. */
    const attempt = async (session: TestSession, overrides: RegistrationOverrides = {}, origin?: string) =>
      registrationAttempt(identity, session, new SoftwareAuthenticator(), { overrides, ...(origin ? { origin } : {}) });

    it.each(REGISTRATION_ATTACKS)('rejects a registration $attack', async ({ origin, overrides, mutate, reason }) => {
      const session = await freshSession(identity, owner);
      const before = (await credentialRows(identity, owner.userId)).length;
      const started = await attempt(session, overrides, origin);
      mutate?.(started.credential);
      const res = await finish(identity, REGISTRATION_FINISH, started.body, { session, cookies: [started.cookie] });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: reason,
      });
      expect(await credentialRows(identity, owner.userId)).toHaveLength(before);
    });

    it('rejects a registration reporting an unknown transport with 400 request_invalid and consumes the ceremony', async () => {
      const session = await freshSession(identity, owner);
      const before = (await credentialRows(identity, owner.userId)).length;
      const started = await attempt(session, { transports: ['usb', 'quantum'] });
      const res = await finish(identity, REGISTRATION_FINISH, started.body, { session, cookies: [started.cookie] });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 400,
        code: 'request_invalid',
        failureReason: 'request_invalid',
      });
      expect(await credentialRows(identity, owner.userId)).toHaveLength(before);
    });

    it('rejects an attestationObject over 128 KiB before decoding it (400 request_invalid, ceremony consumed)', async () => {
      const session = await freshSession(identity, owner);
      const started = await attempt(session, { attestationObject: new Uint8Array(128 * 1024 + 1) });
      const res = await finish(identity, REGISTRATION_FINISH, started.body, { session, cookies: [started.cookie] });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 400,
        code: 'request_invalid',
        failureReason: 'request_invalid',
      });
    });

    it('rejects a registration without the ceremony cookie', async () => {
      const session = await freshSession(identity, owner);
      const started = await attempt(session);
      const res = await finish(identity, REGISTRATION_FINISH, started.body, { session, cookies: [] });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'ceremony_binding',
      });
    });

    it('consumes a registration ceremony exactly once for a malformed credential', async () => {
      const session = await freshSession(identity, owner);
      const started = await attempt(session);
      const { attestationObject: _dropped, ...response } = started.credential.response;
      const malformed = await finish(
        identity,
        REGISTRATION_FINISH,
        { ...started.body, credential: { ...started.credential, response } },
        { session, cookies: [started.cookie] },
      );
      await expectCeremonyRejected(identity, malformed, started.ceremonyId, {
        status: 400,
        code: 'request_invalid',
        failureReason: 'request_invalid',
      });
      const retry = await finish(identity, REGISTRATION_FINISH, started.body, { session, cookies: [started.cookie] });
      expect(errorOf(retry)).toMatchObject({ status: 400, code: 'challenge_invalid' });
      expect(await rejectionsOf(identity, started.ceremonyId)).toHaveLength(1);
    });

    it('expires a registration ceremony at its 5-minute TTL: challenge_invalid, state expired, audited', async () => {
      const user = await enrollInvitee(identity, organizationId, owner.userId);
      const started = await attempt(user);
      identity.clock.advance({ minutes: 5 });
      const res = await finish(identity, REGISTRATION_FINISH, started.body, {
        session: user,
        cookies: [started.cookie],
      });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 400,
        code: 'challenge_invalid',
        state: 'expired',
        failureReason: 'webauthn_challenge_expired',
        auditReason: 'webauthn_challenge_expired',
      });
      expect(await credentialRows(identity, user.userId)).toHaveLength(0);
    });

    it('gives no oracle for a credential id registered to another user: same 401 body, ceremony failed, store rejection audited', async () => {
      const invitee = await enrollInvitee(identity, organizationId, owner.userId);
      const epoch = await userEpoch(identity, invitee.userId);
      const baseline = await attempt(invitee, { clearFlags: AuthenticatorFlag.UV });
      const verificationFailure = await finish(identity, REGISTRATION_FINISH, baseline.body, {
        session: invitee,
        cookies: [baseline.cookie],
      });
      const duplicate = await attempt(invitee, {
        credentialId: Buffer.from(owner.credentialId, 'base64url'),
        ignoreExcludeCredentials: true,
      });
      const res = await finish(identity, REGISTRATION_FINISH, duplicate.body, {
        session: invitee,
        cookies: [duplicate.cookie],
      });
      expect(errorOf(res)).toEqual(errorOf(verificationFailure));
      expect(res.headers['set-cookie']).toEqual(verificationFailure.headers['set-cookie']);
      await expectCeremonyRejected(identity, res, duplicate.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'webauthn_store_rejected',
        auditReason: 'webauthn_store_rejected',
      });
      // Everything but the failed ceremony and its audit rolled back.
      expect(await credentialRows(identity, invitee.userId)).toHaveLength(0);
      expect(await userEpoch(identity, invitee.userId)).toBe(epoch);
      expect(await rowsOf(identity).count('recovery_codes', 'user_id = ?', [invitee.userId])).toBe(0);
      expect(
        (
          await rowsOf(identity).sql('select state from tessera_identity.sessions where id = ?', [invitee.sessionId])
        )[0],
      ).toEqual({ state: 'active' });
      const owners = await credentialRows(identity, owner.userId);
      expect(owners.find((row) => row['web_authn_id'] === owner.credentialId)!['user_id']).toBe(owner.userId);
    });

    it('gives no oracle for a credential id re-registered by its own user from a passkey session', async () => {
      const session = await freshSession(identity, owner);
      const duplicate = await attempt(session, {
        credentialId: Buffer.from(owner.credentialId, 'base64url'),
        ignoreExcludeCredentials: true,
      });
      const res = await finish(identity, REGISTRATION_FINISH, duplicate.body, { session, cookies: [duplicate.cookie] });
      await expectCeremonyRejected(identity, res, duplicate.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'webauthn_store_rejected',
        auditReason: 'webauthn_store_rejected',
      });
    });
  });

  it('stores only the SHA-256 of each fresh sign-in challenge', async () => {
    const first = await post(identity, SIGN_IN_START);
    const second = await post(identity, SIGN_IN_START);
    expect(first.body.publicKey.challenge).not.toBe(second.body.publicKey.challenge);
    expect(first.body.ceremonyId).not.toBe(second.body.ceremonyId);
    const rows = await rowsOf(identity).sql(
      'select challenge_digest_encoded from tessera_identity.challenges where id in (?, ?)',
      [first.body.ceremonyId, second.body.ceremonyId],
    );
    // Only the SHA-256 of each challenge is stored.
    const sha256 = (challenge: string) =>
      createHash('sha256').update(Buffer.from(challenge, 'base64url')).digest('base64url');
    expect(new Set(rows.map((row) => row['challenge_digest_encoded']))).toEqual(
      new Set([sha256(first.body.publicKey.challenge), sha256(second.body.publicKey.challenge)]),
    );
  });
});
