import { describe, it, expect } from '@jest/globals';
import { Buffer } from 'node:buffer';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import {
  CLEARED_CEREMONY_COOKIE,
  REGISTRATION_FINISH,
  REGISTRATION_START,
  SIGN_IN_FINISH,
  SIGN_IN_START,
  STEP_UP_FINISH,
  STEP_UP_START,
  challengeOf,
  credentialRows,
  enrollInvitee,
  errorOf,
  expectCeremonyRejected,
  finish,
  freshSession,
  inviteeWithPasskey,
  rejectionsOf,
  rowsOf,
  sessionCount,
  setCookiesOf,
  signInAttempt,
  startCeremony,
  type PasskeyUser,
} from './passkey-fixtures.js';
import { usePasskeySuite } from './passkey-suite.support.js';
import { ASSERTION_ATTACKS, b64 } from './webauthn-attack.cases.js';

describe('WebAuthn attacks on passkey ceremonies (routes 2–7)', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;
  let organizationId: string;
  usePasskeySuite((suite) => ({ identity, owner, organizationId } = suite));

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

    it('answers request_invalid for a credential id that is not strict base64url and consumes the ceremony', async () => {
      const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      const res = await finish(
        identity,
        SIGN_IN_FINISH,
        { ...attempt.body, credential: { ...attempt.credential, id: `${attempt.credential.id}=` } },
        { cookies: [attempt.cookie] },
      );
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 400,
        code: 'request_invalid',
        failureReason: 'request_invalid',
      });
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
});
