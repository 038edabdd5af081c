import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { Buffer } from 'node:buffer';
import { AuthenticatorFlag, SoftwareAuthenticator, type RegistrationOverrides } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import type { TestSession } from '../../support/passkey-client.js';
import {
  REGISTRATION_FINISH,
  bootPasskeyApp,
  credentialRows,
  enrollInvitee,
  errorOf,
  expectCeremonyRejected,
  finish,
  freshSession,
  organizationOf,
  ownerWithPasskey,
  registrationAttempt,
  rejectionsOf,
  rowsOf,
  userEpoch,
  type PasskeyUser,
} from './passkey-fixtures.js';
import { REGISTRATION_ATTACKS } from './webauthn-attack.cases.js';

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
});
