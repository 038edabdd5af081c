import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { Buffer } from 'node:buffer';
import request from 'supertest';
import type { Response } from 'supertest';
import { AuthenticatorFlag, SoftwareAuthenticator, testUuidV7 } from '@tessera/identity-testing';
import { TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { post, registerPasskey, sessionOf, signIn, stepUp } from '../../support/passkey-client.js';
import {
  REGISTRATION_FINISH,
  REGISTRATION_START,
  SIGN_IN_FINISH,
  SIGN_IN_START,
  STEP_UP_FINISH,
  STEP_UP_START,
  bootPasskeyApp,
  credentialRows,
  enrollInvitee,
  errorOf,
  expectCeremonyRejected,
  finish,
  freshSession,
  inviteeWithPasskey,
  organizationOf,
  ownerWithPasskey,
  rowsOf,
  seedSession,
  seedUser,
  sessionCount,
  sessionRow,
  setCookiesOf,
  signInAttempt,
  startCeremony,
  type PasskeyUser,
} from './passkey-fixtures.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** The one `__Host-tessera_ceremony` Set-Cookie of a response, split into value and attributes. */
function ceremonyCookie(res: Response): { value: string; attributes: string[] } {
  const cookies = setCookiesOf(res).filter((cookie) => cookie.startsWith('__Host-tessera_ceremony='));
  expect(cookies).toHaveLength(1);
  const [pair, ...attributes] = cookies[0]!.split('; ');
  return { value: pair!.slice('__Host-tessera_ceremony='.length), attributes: attributes.sort() };
}

const START_ATTRIBUTES = ['HttpOnly', 'Max-Age=300', 'Path=/', 'SameSite=Strict', 'Secure'];
const CLEAR_ATTRIBUTES = ['HttpOnly', 'Max-Age=0', 'Path=/', 'SameSite=Strict', 'Secure'];

function expectCeremonyCookieSet(res: Response): void {
  const cookie = ceremonyCookie(res);
  expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(cookie.attributes).toEqual(START_ATTRIBUTES);
}

function expectCeremonyCookieCleared(res: Response): void {
  expect(ceremonyCookie(res)).toEqual({ value: '', attributes: CLEAR_ATTRIBUTES });
}

describe('ceremony cookies, WebAuthn options and session rotation (identity-http §4.6, §9.1)', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;
  let other: PasskeyUser;
  let organizationId: string;

  beforeAll(async () => {
    identity = await bootPasskeyApp();
    owner = await ownerWithPasskey(identity);
    organizationId = await organizationOf(identity, owner.userId);
    other = await inviteeWithPasskey(identity, organizationId, owner.userId);
  });
  afterAll(async () => identity?.close());

  describe('the ceremony cookie', () => {
    it('is set by every start with Secure, HttpOnly, SameSite=Strict, Path=/, Max-Age=300 and no Domain', async () => {
      const session = await freshSession(identity, owner);
      for (const path of [REGISTRATION_START, SIGN_IN_START, STEP_UP_START]) {
        const res = await post(identity, path, path === SIGN_IN_START ? undefined : session);
        expect(res.status).toBe(200);
        expectCeremonyCookieSet(res);
      }
    });

    it('is a fresh 32-byte value per ceremony', async () => {
      const values = await Promise.all(
        Array.from({ length: 5 }, async () => ceremonyCookie(await post(identity, SIGN_IN_START)).value),
      );
      expect(new Set(values).size).toBe(5);
      for (const value of values) expect(Buffer.from(value, 'base64url')).toHaveLength(32);
    });

    it('is cleared by successful sign-in, step-up and registration finishes', async () => {
      const signedIn = await signIn(identity, owner.authenticator, { credentialId: owner.credentialId });
      expect(signedIn.status).toBe(200);
      expectCeremonyCookieCleared(signedIn);
      identity.clock.advance({ minutes: 10 });
      const stepped = await stepUp(identity, sessionOf(signedIn), owner.authenticator);
      expect(stepped.status).toBe(200);
      expectCeremonyCookieCleared(stepped);
      const registered = await registerPasskey(identity, sessionOf(stepped), new SoftwareAuthenticator());
      expect(registered.status).toBe(200);
      expectCeremonyCookieCleared(registered);
    });

    it('is cleared by failed finishes: verification failure, malformed credential, unknown ceremony, expiry, undecodable body', async () => {
      const failures: Response[] = [];
      const broken = await signInAttempt(identity, owner.authenticator, {
        credentialId: owner.credentialId,
        overrides: { clearFlags: AuthenticatorFlag.UV },
      });
      failures.push(await finish(identity, SIGN_IN_FINISH, broken.body, { cookies: [broken.cookie] }));
      const malformed = await startCeremony(identity, SIGN_IN_START);
      failures.push(
        await finish(
          identity,
          SIGN_IN_FINISH,
          { ceremonyId: malformed.ceremonyId, credential: {} },
          { cookies: [malformed.cookie] },
        ),
      );
      failures.push(
        await finish(
          identity,
          SIGN_IN_FINISH,
          { ceremonyId: testUuidV7(), credential: {} },
          { cookies: [malformed.cookie] },
        ),
      );
      const expiring = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
      identity.clock.advance({ minutes: 6 });
      failures.push(await finish(identity, SIGN_IN_FINISH, expiring.body, { cookies: [expiring.cookie] }));
      failures.push(
        await post(identity, SIGN_IN_FINISH, undefined, [expiring.cookie])
          .set('content-type', 'application/json')
          .send('{"ceremonyId":'),
      );
      const session = await freshSession(identity, owner);
      failures.push(await finish(identity, STEP_UP_FINISH, { ceremonyId: testUuidV7(), credential: {} }, { session }));
      failures.push(
        await finish(
          identity,
          REGISTRATION_FINISH,
          { ceremonyId: testUuidV7(), credentialName: 'x', credential: {} },
          { session },
        ),
      );
      expect(failures.map((res) => [res.status, res.body.error.code])).toEqual([
        [401, 'invalid_credentials'],
        [400, 'request_invalid'],
        [400, 'challenge_invalid'],
        [400, 'challenge_invalid'],
        [400, 'request_invalid'],
        [400, 'challenge_invalid'],
        [400, 'challenge_invalid'],
      ]);
      for (const res of failures) expectCeremonyCookieCleared(res);
    });
  });

  describe('WebAuthn options', () => {
    it('offers registration options exactly as identity-http §4.6', async () => {
      const session = await freshSession(identity, owner);
      const res = await post(identity, REGISTRATION_START, session);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['ceremonyId', 'publicKey']);
      expect(res.body.ceremonyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const credentials = await credentialRows(identity, owner.userId);
      expect(res.body.publicKey).toEqual({
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        rp: { id: 'localhost', name: 'Tessera test' },
        user: { id: b64(owner.userId), name: 'ada@example.com', displayName: 'Ada Lovelace' },
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
        timeout: 300000,
        excludeCredentials: credentials
          .map((row) => String(row['web_authn_id']))
          .sort()
          .map((id) => ({ type: 'public-key', id, transports: ['internal'] })),
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
        attestation: 'none',
        extensions: { credProps: true },
        hints: [],
      });
    });

    it('excludes exactly the non-revoked passkeys, sorted by credential id, with their transports', async () => {
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId);
      for (const transports of [['usb', 'nfc'], ['hybrid'], ['smart-card', 'ble']]) {
        const res = await registerPasskey(
          identity,
          await freshSession(identity, user),
          new SoftwareAuthenticator({ transports }),
        );
        expect(res.status).toBe(200);
      }
      // The passkey the user signs in with stays active; the three others change state.
      const all = await credentialRows(identity, user.userId);
      const rows = all.filter((row) => row['web_authn_id'] !== user.credentialId);
      const states = ['revoked', 'suspended', 'suspected_clone'];
      for (const [index, state] of states.entries()) {
        await rowsOf(identity).sql(
          `update tessera_identity.credentials set state = ?, revoked_at = case when ? = 'revoked' then updated_at end where id = ?`,
          [state, state, rows[index]!['id']],
        );
      }
      const res = await post(identity, REGISTRATION_START, await freshSession(identity, user));
      const expected = all
        .filter((row) => row['id'] !== rows[0]!['id'])
        .map((row) => ({ type: 'public-key', id: String(row['web_authn_id']), transports: row['transports'] }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(res.body.publicKey.excludeCredentials).toEqual(expected);
    });

    it('names the user by id when the email exceeds 64 bytes and cuts the display name to 64 UTF-8 bytes', async () => {
      const email = `${'a'.repeat(60)}@example.com`;
      const invitee = await enrollInvitee(identity, organizationId, owner.userId, email, 'é'.repeat(40));
      const res = await post(identity, REGISTRATION_START, invitee);
      expect(res.body.publicKey.user).toEqual({
        id: b64(invitee.userId),
        name: invitee.userId,
        displayName: 'é'.repeat(32),
      });
    });

    it('offers username-free sign-in options exactly as identity-http §4.6', async () => {
      const res = await post(identity, SIGN_IN_START);
      expect(res.status).toBe(200);
      expect(res.body.publicKey).toEqual({
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        timeout: 300000,
        rpId: 'localhost',
        allowCredentials: [],
        userVerification: 'required',
        hints: [],
      });
    });

    it('offers step-up over exactly the user’s active passkeys', async () => {
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId);
      for (let i = 0; i < 3; i++) {
        expect(
          (await registerPasskey(identity, await freshSession(identity, user), new SoftwareAuthenticator())).status,
        ).toBe(200);
      }
      const all = await credentialRows(identity, user.userId);
      const rows = all.filter((row) => row['web_authn_id'] !== user.credentialId);
      await rowsOf(identity).sql(`update tessera_identity.credentials set state = 'suspended' where id = ?`, [
        rows[0]!['id'],
      ]);
      await rowsOf(identity).sql(
        `update tessera_identity.credentials set state = 'revoked', revoked_at = updated_at where id = ?`,
        [rows[1]!['id']],
      );
      const res = await post(identity, STEP_UP_START, await freshSession(identity, user));
      expect(res.status).toBe(200);
      const { allowCredentials, ...rest } = res.body.publicKey;
      expect(rest).toEqual({
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        timeout: 300000,
        rpId: 'localhost',
        userVerification: 'required',
        hints: [],
      });
      expect(new Set((allowCredentials as { id: string }[]).map((d) => JSON.stringify(d)))).toEqual(
        new Set(
          all
            .filter((row) => row['id'] !== rows[0]!['id'] && row['id'] !== rows[1]!['id'])
            .map((row) => JSON.stringify({ id: row['web_authn_id'], transports: ['internal'], type: 'public-key' })),
        ),
      );
      expect(allowCredentials).toHaveLength(2);
    });

    it('refuses step-up start with 401 invalid_credentials when the user has no active passkey', async () => {
      const userId = await seedUser(identity);
      const federated = await seedSession(identity, userId, 'oidc');
      const res = await post(identity, STEP_UP_START, federated);
      expect(errorOf(res)).toMatchObject({ status: 401, code: 'invalid_credentials' });
      expect(setCookiesOf(res).some((cookie) => cookie.startsWith('__Host-tessera_ceremony='))).toBe(false);
      expect(await rowsOf(identity).count('challenges', 'user_id = ?', [userId])).toBe(0);
    });
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
