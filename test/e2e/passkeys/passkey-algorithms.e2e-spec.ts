import { describe, it, expect } from '@jest/globals';
import { Buffer } from 'node:buffer';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { CoseAlgorithm, SoftwareAuthenticator, type CoseAlgorithmId } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { sessionOf, signIn, stepUp } from '../../support/passkey-client.js';
import {
  SIGN_IN_FINISH,
  credentialRows,
  expectCeremonyRejected,
  finish,
  inviteeWithPasskey,
  signInAttempt,
  type PasskeyUser,
} from './passkey-fixtures.js';
import { usePasskeySuite } from './passkey-suite.support.js';

/** The COSE `alg` (member 3) of a stored key. */
const coseAlgOf = (publicKey: Buffer) => isoCBOR.decodeFirst<Map<number, unknown>>(Uint8Array.from(publicKey)).get(3);

describe('passkeys from every platform: ES256, EdDSA and RS256 over HTTP (identity-model §5.3)', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;
  let organizationId: string;
  usePasskeySuite((suite) => ({ identity, owner, organizationId } = suite));

  describe.each([
    ['an Ed25519 security key (EdDSA)', CoseAlgorithm.EdDSA],
    ['a Windows Hello TPM (RS256)', CoseAlgorithm.RS256],
    ['a platform authenticator (ES256)', CoseAlgorithm.ES256],
  ] as const)('%s', (_name, alg: CoseAlgorithmId) => {
    let user: PasskeyUser;

    it('registers from the default options (first offered algorithm it supports), stores its COSE key as sent, signs in and steps up', async () => {
      const authenticator = new SoftwareAuthenticator({ algorithms: [alg] });
      user = await inviteeWithPasskey(identity, organizationId, owner.userId, authenticator);
      const [row] = await credentialRows(identity, user.userId);
      const held = authenticator.credential(user.credentialId)!;
      expect(held.algorithm).toBe(alg);
      const stored = Buffer.from(row!['public_key'] as Uint8Array);
      expect(stored.equals(Buffer.from(held.publicKey))).toBe(true);
      expect(coseAlgOf(stored)).toBe(alg);
      const signedIn = await signIn(identity, authenticator);
      expect(signedIn.status).toBe(200);
      expect(signedIn.body).toMatchObject({ userId: user.userId, assurance: 'passkey' });
      identity.clock.advance({ minutes: 10 });
      const stepped = await stepUp(identity, sessionOf(signedIn), authenticator);
      expect(stepped.status).toBe(200);
      expect(stepped.body.assurance).toBe('step_up');
      expect(Number((await credentialRows(identity, user.userId))[0]!['sign_count'])).toBe(held.signCount + 2);
    });

    it('refuses a sign-in whose signature is tampered: 401, ceremony failed with signature_invalid', async () => {
      const attempt = await signInAttempt(identity, user.authenticator, { overrides: { tamperSignature: true } });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'signature_invalid',
      });
    });
  });

  it.each([
    ['RS256 one byte short of the modulus', CoseAlgorithm.RS256, (s: Buffer) => s.subarray(1)],
    ['RS256 with a leading zero byte', CoseAlgorithm.RS256, (s: Buffer) => Buffer.concat([Buffer.alloc(1), s])],
    ['EdDSA of 65 bytes', CoseAlgorithm.EdDSA, (s: Buffer) => Buffer.concat([s, Buffer.alloc(1)])],
    ['EdDSA of 63 bytes', CoseAlgorithm.EdDSA, (s: Buffer) => s.subarray(0, 63)],
  ])('refuses a sign-in signature of the wrong length: %s', async (_name, alg, change) => {
    const authenticator = new SoftwareAuthenticator({ algorithms: [alg] });
    await inviteeWithPasskey(identity, organizationId, owner.userId, authenticator);
    const attempt = await signInAttempt(identity, authenticator);
    const signature = Buffer.from(attempt.credential.response.signature, 'base64url');
    attempt.credential.response.signature = change(signature).toString('base64url');
    const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
    await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
      status: 401,
      code: 'invalid_credentials',
      failureReason: 'signature_invalid',
    });
  });
});
