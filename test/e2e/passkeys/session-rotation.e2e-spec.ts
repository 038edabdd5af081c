import { describe, it, expect, beforeAll } from '@jest/globals';
import request from 'supertest';
import { TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { post, sessionOf, signIn, stepUp } from '../../support/passkey-client.js';
import {
  SIGN_IN_FINISH,
  SIGN_IN_START,
  STEP_UP_FINISH,
  STEP_UP_START,
  errorOf,
  expectCeremonyRejected,
  finish,
  freshSession,
  inviteeWithPasskey,
  sessionCount,
  sessionRow,
  setCookiesOf,
  signInAttempt,
  startCeremony,
  type PasskeyUser,
} from './passkey-fixtures.js';
import { usePasskeySuite } from './passkey-suite.support.js';

describe('ceremony cookies, WebAuthn options and session rotation (identity-http §4.6, §9.1)', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;
  let other: PasskeyUser;
  let organizationId: string;
  usePasskeySuite((suite) => ({ identity, owner, organizationId } = suite));
  beforeAll(async () => {
    other = await inviteeWithPasskey(identity, organizationId, owner.userId);
  });

  describe('session rotation', () => {
    it('rotates a valid session of the same user on sign-in: same family, counter + 1, absolute expiry not extended', async () => {
      const session = await freshSession(identity, owner);
      const before = await sessionRow(identity, session.sessionId);
      identity.clock.advance({ hours: 2 });
      const res = await signIn(identity, owner.authenticator, { credentialId: owner.credentialId, session });
      expect(res.status).toBe(200);
      const next = sessionOf(res);
      expect(next.sessionId).not.toBe(session.sessionId);
      const old = await sessionRow(identity, session.sessionId);
      const rotated = await sessionRow(identity, next.sessionId);
      expect([old['state'], old['rotated_to_id']]).toEqual(['rotated', next.sessionId]);
      expect(rotated['family_id']).toBe(before['family_id']);
      expect(rotated['rotation_counter']).toBe(Number(before['rotation_counter']) + 1);
      expect(new Date(rotated['absolute_expires_at'] as string).getTime()).toBe(
        new Date(before['absolute_expires_at'] as string).getTime(),
      );
      expect(res.body.absoluteExpiresAt).toBe(
        new Date(before['absolute_expires_at'] as string).toISOString().replace('.000Z', 'Z'),
      );
      expect([rotated['assurance'], rotated['state']]).toEqual(['passkey', 'active']);
      const stale = await request(identity.app.getHttpServer()).get('/identity/v1/me').set('cookie', session.cookie);
      expect(errorOf(stale)).toMatchObject({ status: 401, code: 'session_revoked' });
    });

    it('rotates the current session into step_up on step-up: same family, counter + 1, absolute expiry not extended', async () => {
      const session = await freshSession(identity, owner);
      const before = await sessionRow(identity, session.sessionId);
      identity.clock.advance({ hours: 1 });
      const res = await stepUp(identity, session, owner.authenticator);
      expect(res.status).toBe(200);
      const rotated = await sessionRow(identity, res.body.sessionId);
      expect([rotated['assurance'], rotated['authentication_method'], rotated['family_id']]).toEqual([
        'step_up',
        'passkey',
        before['family_id'],
      ]);
      expect(rotated['rotation_counter']).toBe(Number(before['rotation_counter']) + 1);
      expect(new Date(rotated['absolute_expires_at'] as string).getTime()).toBe(
        new Date(before['absolute_expires_at'] as string).getTime(),
      );
      expect((await sessionRow(identity, session.sessionId))['state']).toBe('rotated');
    });

    it('refuses a sign-in that presents another user’s valid session: 401, nothing rotated, no session minted', async () => {
      const victim = await freshSession(identity, other);
      const sessions = await sessionCount(identity);
      const attempt = await signInAttempt(identity, owner.authenticator, {
        credentialId: owner.credentialId,
        session: victim,
      });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { session: victim, cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'another_user',
      });
      expect(setCookiesOf(res).some((cookie) => /^__Host-tessera_session=[^;]/.test(cookie))).toBe(false);
      expect(await sessionCount(identity)).toBe(sessions);
      expect((await sessionRow(identity, victim.sessionId))['state']).toBe('active');
    });

    it('refuses a step-up signed with another user’s passkey: 401, session not rotated', async () => {
      const session = await freshSession(identity, owner);
      const started = await startCeremony(identity, STEP_UP_START, session);
      const credential = other.authenticator.getAssertion(started.publicKey as never, {
        origin: TEST_ORIGIN,
        credentialId: other.credentialId,
      });
      const sessions = await sessionCount(identity);
      const res = await finish(
        identity,
        STEP_UP_FINISH,
        { ceremonyId: started.ceremonyId, credential },
        { session, cookies: [started.cookie] },
      );
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'another_user',
      });
      expect(await sessionCount(identity)).toBe(sessions);
      const row = await sessionRow(identity, session.sessionId);
      expect([row['state'], row['assurance']]).toEqual(['active', 'passkey']);
    });

    it('refuses a step-up ceremony finished from another session of the same user (bound to its session)', async () => {
      const first = await freshSession(identity, owner);
      const second = await freshSession(identity, owner);
      const started = await startCeremony(identity, STEP_UP_START, first);
      const credential = owner.authenticator.getAssertion(started.publicKey as never, {
        origin: TEST_ORIGIN,
        credentialId: owner.credentialId,
      });
      const res = await finish(
        identity,
        STEP_UP_FINISH,
        { ceremonyId: started.ceremonyId, credential },
        { session: second, cookies: [started.cookie] },
      );
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'payload_binding',
      });
      expect((await sessionRow(identity, first.sessionId))['state']).toBe('active');
      expect((await sessionRow(identity, second.sessionId))['state']).toBe('active');
    });

    it('signs in anonymously over a stale (revoked) session cookie', async () => {
      const session = await freshSession(identity, owner);
      expect((await post(identity, '/identity/v1/logout', session)).status).toBe(200);
      const started = await startCeremony(identity, SIGN_IN_START);
      const credential = owner.authenticator.getAssertion(started.publicKey as never, {
        origin: TEST_ORIGIN,
        credentialId: owner.credentialId,
      });
      const res = await request(identity.app.getHttpServer())
        .post(SIGN_IN_FINISH)
        .set('origin', TEST_ORIGIN)
        .set('cookie', [session.cookie, started.cookie].join('; '))
        .send({ ceremonyId: started.ceremonyId, credential });
      expect(res.status).toBe(200);
      const fresh = await sessionRow(identity, res.body.sessionId);
      expect([fresh['rotation_counter'], fresh['state']]).toEqual([0, 'active']);
      expect(fresh['family_id']).toBe(res.body.sessionId);
      expect((await sessionRow(identity, session.sessionId))['state']).toBe('revoked');
    });
  });
});
