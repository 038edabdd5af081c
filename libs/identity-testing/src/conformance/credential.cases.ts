import { describe, expect, it } from '@jest/globals';
import type { ChallengeRecord, CredentialRecord } from '@tessera/identity';
import { randomBytes } from 'node:crypto';
import { newTestCredential } from '../identity-test.credentials.js';
import { encodeCbor, type CborValue } from '../webauthn/cbor.js';
import { CoseAlgorithm, generateCoseKeyPair } from '../webauthn/cose-key.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { CredentialFixtures } from './credential.fixtures.js';

/** Passkey registration, CREDENTIAL_UNIQUENESS, FEDERATED_FIRST_PASSKEY_SINGLE, rename/revoke, quarantine. */
export function credentialCases(world: ConformanceWorld): void {
  const fixtures = new CredentialFixtures(world);

  describe('passkey registration', () => {
    it('registers a passkey with its audit and consumes the ceremony; reads find it by id, WebAuthn id and user', async () => {
      const userId = await world.rows.user();
      const challenge = await fixtures.challenge({ userId });
      const at = world.tick();
      const input = fixtures.registration(challenge, userId, {
        credential: newTestCredential({ userId, signCount: 7, backedUp: true, transports: ['usb', 'smart-card'] }),
      });
      const credential = unwrap(await world.store.completeCredentialRegistration(input));
      const { publicKey, ...rest } = input.credential;
      expect(credential).toEqual({
        ...rest,
        publicKey: expect.any(Uint8Array),
        transports: ['usb', 'smart-card'],
        state: 'active',
        version: 0,
        createdAt: at,
        updatedAt: at,
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(Buffer.from(credential.publicKey).equals(Buffer.from(publicKey))).toBe(true);
      expect(await world.store.findCredential(credential.id)).toEqual(credential);
      expect(await world.store.findCredentialByWebAuthnId(credential.webAuthnId)).toEqual(credential);
      world.tick();
      const later = await fixtures.passkey(userId);
      expect((await world.store.listCredentialsForUser(userId)).map((c) => c.id)).toEqual([credential.id, later.id]);
      expect(await world.store.findChallenge(challenge.id)).toMatchObject({ state: 'consumed', version: 1 });
      expect(await world.storedAudits(input.audits)).toBe(1);
      expect(await world.storedAudits(input.rejection.audits)).toBe(0);
    });
  });

  describe('passkey public keys of every algorithm (ES256, EdDSA, RS256)', () => {
    /** An RS256 COSE key of the largest accepted size: a 4096-bit modulus (529 bytes in all). */
    const rs4096 = () => {
      const n = new Uint8Array(randomBytes(512));
      n[0] = n[0]! | 0x80;
      return encodeCbor(
        new Map<CborValue, CborValue>([
          [1, 3],
          [3, CoseAlgorithm.RS256],
          [-1, n],
          [-2, Uint8Array.of(1, 0, 1)],
        ]),
      );
    };
    it.each([
      ['ES256', () => generateCoseKeyPair(CoseAlgorithm.ES256).cosePublicKey],
      ['EdDSA', () => generateCoseKeyPair(CoseAlgorithm.EdDSA).cosePublicKey],
      ['RS256 (2048-bit)', () => generateCoseKeyPair(CoseAlgorithm.RS256).cosePublicKey],
      ['RS256 (4096-bit)', rs4096],
    ])('stores the %s COSE key byte for byte and reads it back by id and WebAuthn id', async (_name, key) => {
      const userId = await world.rows.user();
      const challenge = await fixtures.challenge({ userId });
      world.tick();
      const publicKey = key();
      const input = fixtures.registration(challenge, userId, { credential: newTestCredential({ userId, publicKey }) });
      const credential = unwrap(await world.store.completeCredentialRegistration(input));
      for (const read of [
        credential,
        await world.store.findCredential(credential.id),
        await world.store.findCredentialByWebAuthnId(credential.webAuthnId),
      ])
        expect(Buffer.from(read!.publicKey).equals(Buffer.from(publicKey))).toBe(true);
    });
  });

  describe('CREDENTIAL_UNIQUENESS', () => {
    it('rejects a WebAuthn id registered before with unique_constraint: nothing of it persists, its ceremony ends failed with the rejection audit', async () => {
      const owner = await world.rows.user();
      const existing = await fixtures.passkey(owner);
      const other = await world.rows.user();
      const challenge = await fixtures.challenge({ userId: other });
      world.tick();
      const input = fixtures.registration(challenge, other, {
        credential: newTestCredential({ userId: other, webAuthnId: existing.webAuthnId }),
      });
      expect(await world.store.completeCredentialRegistration(input)).toEqual({
        ok: false,
        code: 'unique_constraint',
      });
      expect(await world.store.findCredential(input.credential.id)).toBeNull();
      expect(await world.store.findCredentialByWebAuthnId(existing.webAuthnId)).toEqual(existing);
      expect(await world.store.findChallenge(challenge.id)).toMatchObject({
        state: 'failed',
        failureReason: input.rejection.failureReason,
        version: 1,
      });
      expect(await world.storedAudits(input.audits)).toBe(0);
      expect(await world.storedAudits(input.rejection.audits)).toBe(1);
    });

    it(`registers one WebAuthn id once under ${world.concurrency} concurrent ceremonies of different users`, async () => {
      const webAuthnId = newTestCredential({ userId: '' }).webAuthnId;
      const attempts: { challenge: ChallengeRecord; input: ReturnType<typeof fixtures.registration> }[] = [];
      for (let i = 0; i < world.concurrency; i++) {
        const userId = await world.rows.user();
        const challenge = await fixtures.challenge({ userId });
        const credential = newTestCredential({ userId, webAuthnId });
        attempts.push({ challenge, input: fixtures.registration(challenge, userId, { credential }) });
      }
      const results = await Promise.all(attempts.map((a) => world.store.completeCredentialRegistration(a.input)));
      const { winners, codes } = partition(results);
      expect(winners).toHaveLength(1);
      expect(codes).toEqual(Array(world.concurrency - 1).fill('unique_constraint'));
      expect(await world.rows.count('credentials', 'web_authn_id = ?', [webAuthnId])).toBe(1);
      const challenges = attempts.map((a) => a.challenge);
      expect(await fixtures.challengesIn('failed', challenges)).toBe(world.concurrency - 1);
      expect(await fixtures.challengesIn('consumed', challenges)).toBe(1);
      expect(await world.storedAudits(attempts.flatMap((a) => a.input.rejection.audits))).toBe(world.concurrency - 1);
      expect(await world.storedAudits(attempts.flatMap((a) => a.input.audits))).toBe(1);
    });
  });

  describe('FEDERATED_FIRST_PASSKEY_SINGLE', () => {
    it(`registers one first passkey under ${world.concurrency} concurrent FED1 ceremonies of one user; the losers end failed with already_exists`, async () => {
      const userId = await world.rows.user();
      const attempts: { challenge: ChallengeRecord; input: ReturnType<typeof fixtures.registration> }[] = [];
      for (let i = 0; i < world.concurrency; i++) {
        const challenge = await fixtures.challenge({ userId });
        attempts.push({ challenge, input: fixtures.registration(challenge, userId, { requireNoCredential: true }) });
      }
      const results = await Promise.all(attempts.map((a) => world.store.completeCredentialRegistration(a.input)));
      const { winners, codes } = partition(results);
      expect(winners).toHaveLength(1);
      expect(codes).toEqual(Array(world.concurrency - 1).fill('already_exists'));
      expect(await world.rows.count('credentials', 'user_id = ?', [userId])).toBe(1);
      const challenges = attempts.map((a) => a.challenge);
      expect(await fixtures.challengesIn('failed', challenges)).toBe(world.concurrency - 1);
      expect(await world.storedAudits(attempts.flatMap((a) => a.input.rejection.audits))).toBe(world.concurrency - 1);
    });

    it('counts only non-revoked passkeys: after revoking the first, FED1 registers again', async () => {
      const userId = await world.rows.user();
      const first = await fixtures.passkey(userId);
      const blocked = fixtures.registration(await fixtures.challenge({ userId }), userId, {
        requireNoCredential: true,
      });
      expect(await world.store.completeCredentialRegistration(blocked)).toEqual({ ok: false, code: 'already_exists' });
      unwrap(await mutate(first, { kind: 'revoke' }));
      const allowed = fixtures.registration(await fixtures.challenge({ userId }), userId, {
        requireNoCredential: true,
      });
      expect(unwrap(await world.store.completeCredentialRegistration(allowed)).id).toBe(allowed.credential.id);
    });
  });

  function mutate(credential: CredentialRecord, change: { kind: 'rename'; name: string } | { kind: 'revoke' }) {
    const audit = fixtures.audit(`credential.${change.kind === 'rename' ? 'renamed' : 'revoked'}`, credential.userId);
    const at = world.clock.now();
    const input = { credentialId: credential.id, userId: credential.userId, expectedVersion: credential.version };
    return world.store.mutateCredential({ ...input, change, at, audit });
  }

  describe('passkey management', () => {
    it("renames and revokes by CAS with an audit; a stale version conflicts, another user's passkey is not_found, a revoked one cannot change", async () => {
      const userId = await world.rows.user();
      const credential = await fixtures.passkey(userId);
      const at = world.tick();
      const renamed = unwrap(await mutate(credential, { kind: 'rename', name: 'Work laptop' }));
      expect(renamed).toEqual({ ...credential, name: 'Work laptop', version: 1, updatedAt: at });
      expect(await mutate(credential, { kind: 'rename', name: 'Stale' })).toEqual({
        ok: false,
        code: 'version_conflict',
      });
      const stranger = await world.rows.user();
      expect(await mutate({ ...renamed, userId: stranger }, { kind: 'revoke' })).toEqual({
        ok: false,
        code: 'not_found',
      });
      const revoked = unwrap(await mutate(renamed, { kind: 'revoke' }));
      expect(revoked).toEqual({ ...renamed, state: 'revoked', revokedAt: at, version: 2 });
      expect(await mutate(revoked, { kind: 'rename', name: 'Back' })).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await mutate(revoked, { kind: 'revoke' })).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await world.store.findCredential(credential.id)).toEqual(revoked);
      const where = "action in ('credential.renamed', 'credential.revoked') and actor_user_id = ?";
      expect(await world.rows.count('audit_events', where, [userId])).toBe(2);
    });

    it('quarantines a passkey whose counter went backwards: ceremony consumed, suspected_clone, denied audit, no session', async () => {
      const userId = await world.rows.user();
      const credential = await fixtures.passkey(userId);
      const challenge = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      const at = world.tick();
      const audit = { ...fixtures.audit('credential.quarantined', userId), outcome: 'denied' as const };
      const input = { claim: fixtures.claim(challenge), at, credentialId: credential.id, audits: [audit] };
      const quarantined = unwrap(await world.store.quarantineCredentialAuthentication(input));
      expect(quarantined).toEqual({ ...credential, state: 'suspected_clone', version: 1, updatedAt: at });
      expect(await world.store.findChallenge(challenge.id)).toMatchObject({ state: 'consumed', version: 1 });
      expect(await world.storedAudits([audit])).toBe(1);
      expect(await world.rows.count('sessions', 'user_id = ?', [userId])).toBe(0);

      const next = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      const again = {
        ...input,
        claim: fixtures.claim(next),
        audits: [fixtures.audit('credential.quarantined', userId)],
      };
      expect(await world.store.quarantineCredentialAuthentication(again)).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await world.store.findChallenge(next.id)).toEqual(next);
      expect(await world.storedAudits(again.audits)).toBe(0);
    });
  });
}
