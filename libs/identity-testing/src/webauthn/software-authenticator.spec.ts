import { Buffer } from 'node:buffer';
import { describe, expect, it } from '@jest/globals';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import { decodeAttestationObject, isoCBOR } from '@simplewebauthn/server/helpers';
import { AuthenticatorFlag, rpIdHashOf } from './authenticator-data.js';
import { CborRaw } from './cbor.js';
import { CoseAlgorithm } from './cose-key.js';
import { SoftwareAuthenticatorError } from './software-authenticator.errors.js';
import { SoftwareAuthenticator } from './software-authenticator.js';
import type { SoftwareAuthenticatorOptions } from './software-authenticator.options.js';

const rpID = 'localhost';
const origin = 'http://localhost:3000';
const userId = '01936f4e-8c2a-7d3b-9e1f-0a1b2c3d4e5f';

const fromB64 = (value: string): Uint8Array<ArrayBuffer> => Buffer.from(value, 'base64url');

async function registrationOptions(algorithms: number[] = [-7]): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: 'Tessera',
    rpID,
    userName: 'ada@example.test',
    userID: new TextEncoder().encode(userId),
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    supportedAlgorithmIDs: algorithms,
  });
}

async function verifyRegistration(response: RegistrationResponseJSON, challenge: string, algorithms: number[] = [-7]) {
  return verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
    requireUserVerification: true,
    supportedAlgorithmIDs: algorithms,
  });
}

async function registered(options: SoftwareAuthenticatorOptions = {}) {
  const authenticator = new SoftwareAuthenticator(options);
  const creation = await registrationOptions();
  const response = authenticator.createCredential(creation, { origin });
  const { registrationInfo } = await verifyRegistration(response, creation.challenge);
  if (registrationInfo === undefined) throw new Error('registration did not verify');
  return { authenticator, creation, response, credential: registrationInfo.credential };
}

async function verifyAssertion(
  response: AuthenticationResponseJSON,
  challenge: string,
  credential: WebAuthnCredential,
) {
  return verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
    credential,
    requireUserVerification: true,
  });
}

const flagsOf = (authenticatorData: string): number => fromB64(authenticatorData)[32]!;

describe('SoftwareAuthenticator registration', () => {
  it('produces a none-attested ES256 registration with UV that simplewebauthn verifies', async () => {
    const authenticator = new SoftwareAuthenticator();
    const creation = await registrationOptions();
    const response = authenticator.createCredential(creation, { origin });
    const verified = await verifyRegistration(response, creation.challenge);

    expect(verified.verified).toBe(true);
    expect(verified.registrationInfo).toMatchObject({
      fmt: 'none',
      userVerified: true,
      credentialDeviceType: 'singleDevice',
      credentialBackedUp: false,
    });
    expect(verified.registrationInfo?.credential.id).toBe(response.id);
    const coseKey = isoCBOR.decodeFirst<Map<number, unknown>>(verified.registrationInfo!.credential.publicKey);
    expect(coseKey.get(3)).toBe(-7);
    expect(response).toMatchObject({
      rawId: response.id,
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: { credProps: { rk: true } },
      response: { transports: ['internal'] },
    });
    expect(fromB64(response.id)).toHaveLength(32);
    expect(Buffer.from(fromB64(response.response.clientDataJSON)).toString('utf8')).toBe(
      `{"type":"webauthn.create","challenge":"${creation.challenge}","origin":"${origin}","crossOrigin":false}`,
    );
    expect(authenticator.credentials()).toMatchObject([
      { credentialId: response.id, rpId: rpID, userHandle: creation.user.id, signCount: 0 },
    ]);
  });

  it('is rejected by simplewebauthn when UV is cleared and user verification is required', async () => {
    const creation = await registrationOptions();
    const response = new SoftwareAuthenticator().createCredential(creation, {
      origin,
      overrides: { clearFlags: AuthenticatorFlag.UV },
    });
    await expect(verifyRegistration(response, creation.challenge)).rejects.toThrow(/verif/i);
  });

  it('is rejected by simplewebauthn for a wrong origin, a get type or a foreign RP ID hash', async () => {
    const creation = await registrationOptions();
    const authenticator = new SoftwareAuthenticator();
    for (const overrides of [{ origin: 'https://evil.example' }, { type: 'webauthn.get' }, { rpId: 'evil.example' }]) {
      const response = authenticator.createCredential(creation, { origin, overrides });
      await expect(verifyRegistration(response, creation.challenge)).rejects.toThrow();
    }
  });

  it.each([
    ['ES256', undefined, CoseAlgorithm.ES256],
    ['EdDSA', [CoseAlgorithm.EdDSA], CoseAlgorithm.EdDSA],
    ['RS256', [CoseAlgorithm.RS256], CoseAlgorithm.RS256],
    ['EdDSA (offered before RS256)', [CoseAlgorithm.RS256, CoseAlgorithm.EdDSA], CoseAlgorithm.EdDSA],
  ])(
    'takes the first of -7, -8, -257 it supports (%s): simplewebauthn verifies the registration and a sign-in',
    async (_name, algorithms, expected) => {
      const authenticator = new SoftwareAuthenticator(algorithms === undefined ? {} : { algorithms });
      const all = [CoseAlgorithm.ES256, CoseAlgorithm.EdDSA, CoseAlgorithm.RS256];
      const creation = await registrationOptions(all);
      const response = authenticator.createCredential(creation, { origin });
      const verified = await verifyRegistration(response, creation.challenge, all);
      const credential = verified.registrationInfo!.credential;
      expect(isoCBOR.decodeFirst<Map<number, unknown>>(credential.publicKey).get(3)).toBe(expected);
      expect(authenticator.credential(response.id)?.algorithm).toBe(expected);
      const request = await generateAuthenticationOptions({ rpID, userVerification: 'required' });
      const assertion = authenticator.getAssertion(request, { origin });
      expect((await verifyAssertion(assertion, request.challenge, credential)).verified).toBe(true);
    },
  );

  it('refuses options offering none of its algorithms, and an empty or unknown algorithm list', async () => {
    const creation = await registrationOptions();
    const windowsHello = new SoftwareAuthenticator({ algorithms: [CoseAlgorithm.RS256] });
    expect(() => windowsHello.createCredential(creation, { origin })).toThrow(SoftwareAuthenticatorError);
    expect(() => new SoftwareAuthenticator({ algorithms: [] })).toThrow(RangeError);
    expect(() => new SoftwareAuthenticator({ algorithms: [-35 as never] })).toThrow(RangeError);
  });

  it('creates an RS256 key when forced, which an ES256-only verifier rejects', async () => {
    const creation = await registrationOptions();
    const response = new SoftwareAuthenticator().createCredential(creation, {
      origin,
      overrides: { alg: CoseAlgorithm.RS256 },
    });
    await expect(verifyRegistration(response, creation.challenge)).rejects.toThrow(/alg "-257"/);
  });

  it('produces a packed self-attestation that simplewebauthn accepts (the contract must refuse it itself)', async () => {
    const creation = await registrationOptions();
    const response = new SoftwareAuthenticator().createCredential(creation, {
      origin,
      overrides: { attestationFormat: 'packed' },
    });
    const verified = await verifyRegistration(response, creation.challenge);
    expect(verified).toMatchObject({ verified: true, registrationInfo: { fmt: 'packed' } });
  });

  it('sets BE and BS from the credential, and ED with the extensions map appended', async () => {
    const creation = await registrationOptions();
    const authenticator = new SoftwareAuthenticator({ backupEligible: true, backedUp: true });
    const response = authenticator.createCredential(creation, {
      origin,
      overrides: { extensions: { credProtect: 1 } },
    });
    const authData = decodeAttestationObject(fromB64(response.response.attestationObject)).get('authData');
    expect(authData[32]).toBe(
      AuthenticatorFlag.UP |
        AuthenticatorFlag.UV |
        AuthenticatorFlag.BE |
        AuthenticatorFlag.BS |
        AuthenticatorFlag.AT |
        AuthenticatorFlag.ED,
    );
    expect(Buffer.from(authData.subarray(-14)).toString('hex')).toBe('a16b6372656450726f7465637401');
  });

  it('applies envelope and raw overrides exactly', async () => {
    const creation = await registrationOptions();
    const attestationObject = new CborRaw(Uint8Array.of(0xa0)).bytes;
    const response = new SoftwareAuthenticator().createCredential(creation, {
      origin,
      overrides: {
        transports: ['usb', 'quantum'],
        clientExtensionResults: {},
        clientDataJSON: '{}',
        attestationObject,
        authenticatorAttachment: null,
      },
    });
    expect(response.response).toMatchObject({
      transports: ['usb', 'quantum'],
      clientDataJSON: 'e30',
      attestationObject: 'oA',
    });
    expect(response.clientExtensionResults).toEqual({});
    expect(response).not.toHaveProperty('authenticatorAttachment');
  });

  it('refuses to register over a held excluded credential unless told to ignore it', async () => {
    const { authenticator, response } = await registered();
    const creation = {
      ...(await registrationOptions()),
      excludeCredentials: [{ id: response.id, type: 'public-key' as const }],
    };
    expect(() => authenticator.createCredential(creation, { origin })).toThrow(SoftwareAuthenticatorError);
    const again = authenticator.createCredential(creation, { origin, overrides: { ignoreExcludeCredentials: true } });
    expect(authenticator.credentials().map((c) => c.credentialId)).toEqual([response.id, again.id]);
  });
});

describe('SoftwareAuthenticator assertion', () => {
  it('produces assertions simplewebauthn verifies, with the counter incremented each time', async () => {
    const { authenticator, creation, credential } = await registered();
    let counter = credential.counter;
    for (const expected of [1, 2]) {
      const request = await generateAuthenticationOptions({ rpID, userVerification: 'required', allowCredentials: [] });
      const response = authenticator.getAssertion(request, { origin });
      const verified = await verifyAssertion(response, request.challenge, { ...credential, counter });
      expect(verified).toMatchObject({
        verified: true,
        authenticationInfo: { newCounter: expected, userVerified: true },
      });
      expect(response.response.userHandle).toBe(creation.user.id);
      expect(response.clientExtensionResults).toEqual({});
      counter = verified.authenticationInfo.newCounter;
    }
    expect(authenticator.credential(credential.id)?.signCount).toBe(2);
  });

  it('reports 0 in zero counter mode and the exact override value when asked', async () => {
    const { authenticator: zero } = await registered({ counterMode: 'zero' });
    const request = await generateAuthenticationOptions({ rpID, userVerification: 'required' });
    const counterOf = (r: AuthenticationResponseJSON): number =>
      Buffer.from(fromB64(r.response.authenticatorData)).readUInt32BE(33);
    expect(counterOf(zero.getAssertion(request, { origin }))).toBe(0);
    const { authenticator } = await registered();
    expect(counterOf(authenticator.getAssertion(request, { origin, overrides: { signCount: 7 } }))).toBe(7);
  });

  it('is rejected by simplewebauthn when UV is cleared, the origin is wrong or the signature is tampered', async () => {
    const { authenticator, credential } = await registered();
    const request = await generateAuthenticationOptions({ rpID, userVerification: 'required' });
    const noUv = authenticator.getAssertion(request, { origin, overrides: { clearFlags: AuthenticatorFlag.UV } });
    await expect(verifyAssertion(noUv, request.challenge, credential)).rejects.toThrow(/verif/i);
    const wrongOrigin = authenticator.getAssertion(request, { origin, overrides: { origin: 'http://localhost:4000' } });
    await expect(verifyAssertion(wrongOrigin, request.challenge, credential)).rejects.toThrow(/origin/i);
    const tampered = authenticator.getAssertion(request, { origin, overrides: { tamperSignature: true } });
    await expect(verifyAssertion(tampered, request.challenge, credential)).resolves.toMatchObject({ verified: false });
  });

  it('signs raw authenticator data replacements, so only the targeted property is wrong', async () => {
    const { authenticator, credential } = await registered();
    const request = await generateAuthenticationOptions({ rpID, userVerification: 'required' });
    const authenticatorData = Buffer.concat([rpIdHashOf(rpID), Uint8Array.of(0x05, 0, 0, 0, 9)]);
    const response = authenticator.getAssertion(request, { origin, overrides: { authenticatorData } });
    await expect(verifyAssertion(response, request.challenge, credential)).resolves.toMatchObject({
      verified: true,
      authenticationInfo: { newCounter: 9 },
    });
  });

  it('chooses among allowCredentials, the newest otherwise, and refuses when none matches', async () => {
    const { authenticator, response: first } = await registered();
    const second = authenticator.createCredential(await registrationOptions(), { origin });
    const request = await generateAuthenticationOptions({ rpID, userVerification: 'required' });
    expect(authenticator.getAssertion(request, { origin }).id).toBe(second.id);
    expect(
      authenticator.getAssertion({ ...request, allowCredentials: [{ id: first.id, type: 'public-key' }] }, { origin })
        .id,
    ).toBe(first.id);
    expect(() => authenticator.getAssertion({ ...request, rpId: 'example.test' }, { origin })).toThrow(
      SoftwareAuthenticatorError,
    );
    expect(authenticator.removeCredential(second.id)).toBe(true);
    expect(authenticator.credentials().map((c) => c.credentialId)).toEqual([first.id]);
  });

  it('reports changed backup flags, exact flag bits and user-handle overrides', async () => {
    const { authenticator, credential } = await registered();
    const request = await generateAuthenticationOptions({ rpID, userVerification: 'required' });
    authenticator.setBackupState(credential.id, { backupEligible: true });
    expect(flagsOf(authenticator.getAssertion(request, { origin }).response.authenticatorData)).toBe(0x0d);
    const reserved = authenticator.getAssertion(request, {
      origin,
      overrides: { setFlags: AuthenticatorFlag.RFU1 | AuthenticatorFlag.RFU2 },
    });
    expect(flagsOf(reserved.response.authenticatorData)).toBe(0x2f);
    const exact = authenticator.getAssertion(request, {
      origin,
      overrides: { flags: AuthenticatorFlag.UP | AuthenticatorFlag.BS, userHandle: null },
    });
    expect(flagsOf(exact.response.authenticatorData)).toBe(0x11);
    expect(exact.response).not.toHaveProperty('userHandle');
  });
});
