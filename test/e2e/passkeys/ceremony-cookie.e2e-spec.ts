import { describe, it, expect } from '@jest/globals';
import { Buffer } from 'node:buffer';
import type { Response } from 'supertest';
import { AuthenticatorFlag, SoftwareAuthenticator, testUuidV7 } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post, registerPasskey, sessionOf, signIn, stepUp } from '../../support/passkey-client.js';
import {
  REGISTRATION_FINISH,
  REGISTRATION_START,
  SIGN_IN_FINISH,
  SIGN_IN_START,
  STEP_UP_FINISH,
  STEP_UP_START,
  finish,
  freshSession,
  setCookiesOf,
  signInAttempt,
  startCeremony,
  type PasskeyUser,
} from './passkey-fixtures.js';
import { usePasskeySuite } from './passkey-suite.support.js';

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
  usePasskeySuite((suite) => ({ identity, owner } = suite));

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

    it('is cleared by finishes the caller gate refuses before the handler (401 authentication_required)', async () => {
      const session = await freshSession(identity, owner);
      const stepUp = await startCeremony(identity, STEP_UP_START, session);
      const registration = await startCeremony(identity, REGISTRATION_START, session);
      const refused = [
        await finish(
          identity,
          STEP_UP_FINISH,
          { ceremonyId: stepUp.ceremonyId, credential: {} },
          { cookies: [stepUp.cookie] },
        ),
        await finish(
          identity,
          REGISTRATION_FINISH,
          { ceremonyId: registration.ceremonyId, credentialName: 'x', credential: {} },
          { cookies: [registration.cookie] },
        ),
      ];
      expect(refused.map((res) => [res.status, res.body.error.code])).toEqual([
        [401, 'authentication_required'],
        [401, 'authentication_required'],
      ]);
      for (const res of refused) expectCeremonyCookieCleared(res);
    });
  });
});
