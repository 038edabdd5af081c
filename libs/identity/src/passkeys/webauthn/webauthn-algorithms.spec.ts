import { describe, expect, it } from '@jest/globals';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  AuthenticatorFlag,
  CoseAlgorithm,
  SoftwareAuthenticator,
  cborHead,
  encodeCbor,
  rpIdHashOf,
  type AssertionOverrides,
  type CborValue,
  type CoseAlgorithmId,
  type RegistrationOverrides,
} from '@tessera/identity-testing';
import { createNodeIdentityCrypto } from '../../runtime/node-crypto.provider.js';
import type { CredentialRecord } from '../../store/identity-records.js';
import { PASSKEY_ALGORITHMS, coseKey, parseAuthenticatorData, type PasskeyAlgorithm } from './authenticator-data.js';
import { decodeCanonicalCbor, type CborMap } from './cbor.decoder.js';
import { parseAuthenticationCredential, parseRegistrationCredential } from './credential-json.parser.js';
import { verifyAssertion, verifyRegistration, type VerifiedRegistration } from './webauthn.verifier.js';

const crypto = createNodeIdentityCrypto();
const origin = 'http://localhost:3000';
const rpId = 'localhost';
const userId = '01936f4e-8c2a-7d3b-9e1f-0a1b2c3d4e5f';
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const jwkBytes = (value: string | undefined) => Buffer.from(value!, 'base64url');
const cose = (entries: Array<[number, CborValue]>) => encodeCbor(new Map<CborValue, CborValue>(entries));
const keyOf = (entries: Array<[number, CborValue]>) => coseKey(decodeCanonicalCbor(cose(entries)).value as CborMap);

function rsaJwk(modulusLength: number, publicExponent = 65537) {
  const jwk = generateKeyPairSync('rsa', { modulusLength, publicExponent }).publicKey.export({ format: 'jwk' });
  return { n: jwkBytes(jwk.n), e: jwkBytes(jwk.e) };
}

const rsa2048 = rsaJwk(2048);
const ed25519 = jwkBytes(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x);
const rsaKey = (n: CborValue, e: CborValue = rsa2048.e): Array<[number, CborValue]> => [
  [1, 3],
  [3, -257],
  [-1, n],
  [-2, e],
];
const okpKey = (x: CborValue = ed25519, crv = 6): Array<[number, CborValue]> => [
  [1, 1],
  [3, -8],
  [-1, crv],
  [-2, x],
];
/** A 4096-bit-sized modulus: 512 bytes, top bit set, odd (structure only, never used to verify). */
const n4096 = Buffer.from(randomBytes(512));
n4096[0] = n4096[0]! | 0x80;
n4096[511] = n4096[511]! | 1;

describe('COSE keys of the three passkey algorithms', () => {
  it('offers ES256, EdDSA and RS256 in that order', () => {
    expect(PASSKEY_ALGORITHMS).toEqual([-7, -8, -257]);
  });

  it('reads an exact RS256 key of 2048..4096 bits with e = 65537 and an exact Ed25519 OKP key', () => {
    expect(keyOf(rsaKey(rsa2048.n))).toEqual({
      alg: -257,
      n: Uint8Array.from(rsa2048.n),
      e: Uint8Array.from([1, 0, 1]),
    });
    expect(keyOf(rsaKey(n4096))).toMatchObject({ alg: -257 });
    expect(keyOf(okpKey())).toEqual({ alg: -8, x: Uint8Array.from(ed25519) });
  });

  const flipped = Buffer.from(rsa2048.n);
  flipped[flipped.length - 1] = flipped[flipped.length - 1]! & 0xfe;
  const topBitClear = Buffer.from(rsa2048.n);
  topBitClear[0] = 0x7f;
  it.each<[string, Array<[number, CborValue]>]>([
    ['a 1024-bit RSA modulus', rsaKey(rsaJwk(1024).n)],
    ['a 2047-bit RSA modulus (256 bytes, top bit clear)', rsaKey(topBitClear)],
    ['an RSA modulus over 4096 bits', rsaKey(Buffer.concat([Buffer.from([0xff]), n4096]))],
    ['an RSA modulus with a leading zero byte', rsaKey(Buffer.concat([Buffer.alloc(1), rsa2048.n]))],
    ['an even RSA modulus', rsaKey(flipped)],
    ['an RSA exponent of 3', rsaKey(rsaJwk(2048, 3).n, Buffer.from([3]))],
    ['65537 with a leading zero byte', rsaKey(rsa2048.n, Buffer.from([0, 1, 0, 1]))],
    ['an RSA exponent that is an integer, not bytes', rsaKey(rsa2048.n, 65537)],
    ['an RSA key naming ES256', rsaKey(rsa2048.n).map(([k, v]) => [k, k === 3 ? -7 : v] as [number, CborValue])],
    ['an RSA key naming PS256 (-37)', rsaKey(rsa2048.n).map(([k, v]) => [k, k === 3 ? -37 : v] as [number, CborValue])],
    ['an RSA key with kty EC2', rsaKey(rsa2048.n).map(([k, v]) => [k, k === 1 ? 2 : v] as [number, CborValue])],
    ['an RSA key with an extra kid member', [...rsaKey(rsa2048.n), [2, Buffer.alloc(4)]]],
    ['an RSA key without its exponent', rsaKey(rsa2048.n).slice(0, 3)],
    ['an OKP key on X25519 (crv 4)', okpKey(ed25519, 4)],
    ['an OKP key on Ed448 (crv 7)', okpKey(Buffer.alloc(57, 1), 7)],
    ['an Ed25519 key of 31 bytes', okpKey(ed25519.subarray(1))],
    ['an Ed25519 key of 33 bytes', okpKey(Buffer.concat([ed25519, Buffer.alloc(1)]))],
    ['an Ed25519 key as text', okpKey(ed25519.toString('hex'))],
    ['an OKP key naming RS256', okpKey().map(([k, v]) => [k, k === 3 ? -257 : v] as [number, CborValue])],
    ['an OKP key with kty EC2', okpKey().map(([k, v]) => [k, k === 1 ? 2 : v] as [number, CborValue])],
    ['an OKP key with an extra y member', [...okpKey(), [-3, Buffer.alloc(32)]]],
    ['a key without alg', okpKey().filter(([k]) => k !== 3)],
  ])('refuses %s', (_name, entries) => {
    expect(keyOf(entries)).toBeUndefined();
  });

  it('refuses non-canonical CBOR in an RS256 or EdDSA key inside attested data', () => {
    const attested = (keyBytes: Uint8Array) =>
      Buffer.concat([
        rpIdHashOf(rpId),
        Uint8Array.of(AuthenticatorFlag.UP | AuthenticatorFlag.UV | AuthenticatorFlag.AT),
        Buffer.alloc(4),
        new Uint8Array(16),
        Uint8Array.of(0, 16),
        Buffer.alloc(16, 7),
        keyBytes,
      ]);
    const good = Buffer.from(cose(rsaKey(rsa2048.n)));
    expect(parseAuthenticatorData(attested(good), { registration: true })).toMatchObject({ ok: true });
    expect(parseAuthenticatorData(attested(cose(okpKey())), { registration: true })).toMatchObject({ ok: true });
    // The modulus with a 4-byte length head where 2 bytes suffice.
    const head = cborHead(2, rsa2048.n.length);
    const offset = good.indexOf(Buffer.concat([head, rsa2048.n.subarray(0, 8)]));
    expect(offset).toBe(8); // a4 01 03 03 39 01 00 20, then the modulus
    const longHead = Buffer.concat([
      good.subarray(0, offset),
      cborHead(2, rsa2048.n.length, 4),
      good.subarray(offset + head.length),
    ]);
    const unordered = encodeCbor(new Map<CborValue, CborValue>([...okpKey()].reverse()), { canonical: false });
    for (const bytes of [longHead, unordered])
      expect(parseAuthenticatorData(attested(bytes), { registration: true })).toEqual({
        ok: false,
        reason: 'authenticator_data_malformed',
      });
  });
});

function ceremony() {
  const challenge = randomBytes(32);
  return { challenge: b64(challenge), digest: createHash('sha256').update(challenge).digest() };
}

const creationOptions = (challenge: string) => ({
  challenge,
  rp: { id: rpId, name: 'Tessera' },
  user: { id: b64(Buffer.from(userId)), name: 'ada@example.test', displayName: 'Ada' },
  pubKeyCredParams: PASSKEY_ALGORITHMS.map((alg) => ({ type: 'public-key' as const, alg })),
});

async function register(
  authenticator: SoftwareAuthenticator,
  overrides: RegistrationOverrides = {},
  algorithms: readonly PasskeyAlgorithm[] = PASSKEY_ALGORITHMS,
  mutate: (json: Record<string, any>) => void = () => {},
) {
  const { challenge, digest } = ceremony();
  const json = authenticator.createCredential(creationOptions(challenge), { origin, overrides }) as Record<string, any>;
  mutate(json);
  const credential = parseRegistrationCredential(json)!;
  return verifyRegistration(crypto, credential, json, { challengeDigest: digest, origins: [origin], rpId, algorithms });
}

function recordOf(registration: VerifiedRegistration): CredentialRecord {
  const at = new Date('2026-11-20T10:00:00Z');
  return {
    ...registration,
    id: '01936f4e-8c2a-7d3b-9e1f-0a1b2c3d4e60',
    userId,
    name: 'Laptop',
    state: 'active',
    version: 0,
    createdAt: at,
    updatedAt: at,
    lastUsedAt: null,
    revokedAt: null,
  };
}

async function signIn(
  authenticator: SoftwareAuthenticator,
  stored: CredentialRecord,
  overrides: AssertionOverrides = {},
  resign: (signature: Buffer) => Uint8Array = (signature) => signature,
) {
  const { challenge, digest } = ceremony();
  const json = authenticator.getAssertion({ challenge, rpId }, { origin, overrides });
  json.response.signature = b64(resign(Buffer.from(json.response.signature, 'base64url')));
  const credential = parseAuthenticationCredential(json);
  if (credential === undefined) return { ok: false, reason: 'request_invalid' } as const;
  return verifyAssertion(crypto, credential, json, stored, { challengeDigest: digest, origins: [origin], rpId });
}

async function registered(alg: CoseAlgorithmId) {
  const authenticator = new SoftwareAuthenticator({ algorithms: [alg] });
  const result = await register(authenticator);
  if (!result.ok) throw new Error(`registration refused: ${result.reason}`);
  return { authenticator, stored: recordOf(result.value) };
}

/** A sign-in whose honest signature (over this very ceremony) is re-encoded by `change`. */
async function resigned(alg: CoseAlgorithmId, change: (signature: Buffer) => Uint8Array) {
  const { authenticator, stored } = await registered(alg);
  return signIn(authenticator, stored, {}, change);
}

describe.each([
  ['ES256', CoseAlgorithm.ES256],
  ['EdDSA', CoseAlgorithm.EdDSA],
  ['RS256', CoseAlgorithm.RS256],
] as const)('a %s passkey through the strict layer', (_name, alg) => {
  it('registers with its COSE key stored as sent, signs in, and refuses a tampered signature', async () => {
    const { authenticator, stored } = await registered(alg);
    const held = authenticator.credential(stored.webAuthnId)!;
    expect(Buffer.from(stored.publicKey).equals(Buffer.from(held.publicKey))).toBe(true);
    expect(coseKey(decodeCanonicalCbor(stored.publicKey).value as CborMap)?.alg).toBe(alg);
    expect(await signIn(authenticator, stored)).toEqual({
      ok: true,
      value: { signCount: 1, backedUp: false, counterRegressed: false },
    });
    expect(await signIn(authenticator, stored, { tamperSignature: true })).toEqual({
      ok: false,
      reason: 'signature_invalid',
    });
  });

  it('refuses the algorithm when the options did not offer it', async () => {
    const others = PASSKEY_ALGORITHMS.filter((offered) => offered !== alg);
    const result = await register(new SoftwareAuthenticator({ algorithms: [alg] }), {}, others);
    expect(result).toEqual({ ok: false, reason: 'public_key_unsupported' });
  });

  it('refuses a publicKeyAlgorithm that names another algorithm than the COSE key', async () => {
    const other = PASSKEY_ALGORITHMS.find((offered) => offered !== alg)!;
    const declared = await register(
      new SoftwareAuthenticator({ algorithms: [alg] }),
      {},
      PASSKEY_ALGORITHMS,
      (json) => {
        json.response.publicKeyAlgorithm = other;
      },
    );
    expect(declared).toEqual({ ok: false, reason: 'public_key_unsupported' });
    const honest = await register(new SoftwareAuthenticator({ algorithms: [alg] }), {}, PASSKEY_ALGORITHMS, (json) => {
      json.response.publicKeyAlgorithm = alg;
    });
    expect(honest.ok).toBe(true);
  });
});

describe('signature encodings per algorithm', () => {
  const refused = { ok: false, reason: 'signature_invalid' };

  it('RS256: refuses a signature one byte shorter or longer than the modulus', async () => {
    expect(await resigned(CoseAlgorithm.RS256, (s) => s.subarray(1))).toEqual(refused);
    expect(await resigned(CoseAlgorithm.RS256, (s) => Buffer.concat([Buffer.alloc(1), s]))).toEqual(refused);
    expect(await resigned(CoseAlgorithm.RS256, (s) => s)).toMatchObject({ ok: true });
  });

  it('EdDSA: refuses 63 or 65 bytes and a DER-wrapped signature (raw 64 bytes only)', async () => {
    expect(await resigned(CoseAlgorithm.EdDSA, (s) => s.subarray(1))).toEqual(refused);
    expect(await resigned(CoseAlgorithm.EdDSA, (s) => Buffer.concat([s, Buffer.alloc(1)]))).toEqual(refused);
    const der = (s: Buffer) => {
      const integer = (half: Buffer) => Buffer.concat([Uint8Array.of(2, half.length + 1, 0), half]);
      const body = Buffer.concat([integer(s.subarray(0, 32)), integer(s.subarray(32))]);
      return Buffer.concat([Uint8Array.of(0x30, body.length), body]);
    };
    expect(await resigned(CoseAlgorithm.EdDSA, der)).toEqual(refused);
    expect(await resigned(CoseAlgorithm.EdDSA, (s) => s)).toMatchObject({ ok: true });
  });

  it('ES256: refuses a raw r‖s (P1363) signature (strict DER only)', async () => {
    const p1363 = (s: Buffer) => {
      const rLength = s[3]!;
      const fixed = (integer: Buffer) => Buffer.concat([Buffer.alloc(32), integer]).subarray(-32);
      return Buffer.concat([fixed(s.subarray(4, 4 + rLength)), fixed(s.subarray(6 + rLength))]);
    };
    expect(await resigned(CoseAlgorithm.ES256, p1363)).toEqual(refused);
    expect(await resigned(CoseAlgorithm.ES256, (s) => s)).toMatchObject({ ok: true });
  });

  it("verifies with the stored credential's algorithm: another algorithm's valid signature for the same id fails", async () => {
    const { stored } = await registered(CoseAlgorithm.ES256);
    const impostor = new SoftwareAuthenticator({ algorithms: [CoseAlgorithm.EdDSA] });
    const result = await register(impostor, { credentialId: Buffer.from(stored.webAuthnId, 'base64url') });
    expect(result.ok).toBe(true);
    expect(await signIn(impostor, stored)).toEqual(refused);
  });

  it('refuses to verify against a stored key that is not an exact key of a passkey algorithm', async () => {
    const { authenticator, stored } = await registered(CoseAlgorithm.RS256);
    const weak = { ...stored, publicKey: cose(rsaKey(rsaJwk(1024).n)) };
    expect(await signIn(authenticator, weak)).toEqual({ ok: false, reason: 'public_key_invalid' });
  });
});
