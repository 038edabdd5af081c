import { describe, it, expect, afterEach } from '@jest/globals';
import { DEFAULT_RATE_LIMITS } from '@tessera/identity';
import { testUuidV7 } from '@tessera/identity-testing';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import {
  CLEARED_CEREMONY_COOKIE,
  SIGN_IN_FINISH,
  SIGN_IN_START,
  challengeOf,
  errorOf,
  finish,
  ownerWithPasskey,
  rejectionsOf,
  rowsOf,
  setCookiesOf,
  signInAttempt,
} from './passkey-fixtures.js';

const START_LIMIT = DEFAULT_RATE_LIMITS.passkey_auth_start;
const FINISH_LIMIT = DEFAULT_RATE_LIMITS.passkey_auth_finish;

/** Sign-in ceremonies stored so far. */
const signInChallenges = (identity: IdentityTestApp) =>
  rowsOf(identity).count('challenges', "purpose = 'webauthn_authentication'");

function expectRateLimited(res: Awaited<ReturnType<typeof post>>, windowSeconds: number): void {
  expect(errorOf(res)).toMatchObject({ status: 429, code: 'rate_limited', retryable: true });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds).toBe(true);
}

describe('passkey sign-in rate limits (identity-http §10, default configuration, per peer)', () => {
  let identity: IdentityTestApp | undefined;
  afterEach(async () => identity?.close());

  it(`answers start ${START_LIMIT.limit + 1} within the window 429 with Retry-After and stores no ceremony`, async () => {
    identity = await bootIdentityApp();
    for (let i = 0; i < START_LIMIT.limit; i++) expect((await post(identity, SIGN_IN_START)).status).toBe(200);
    const stored = await signInChallenges(identity);
    expect(stored).toBe(START_LIMIT.limit);

    const denied = await post(identity, SIGN_IN_START);
    expectRateLimited(denied, START_LIMIT.windowSeconds);
    expect(setCookiesOf(denied).filter((c) => c.startsWith('__Host-tessera_ceremony='))).toEqual([]);
    expect(await signInChallenges(identity)).toBe(stored);

    identity.clock.advance({ seconds: START_LIMIT.windowSeconds });
    expect((await post(identity, SIGN_IN_START)).status).toBe(200);
  });

  it(`answers finish ${FINISH_LIMIT.limit + 1} within the window 429 before the ceremony is read, and clears its cookie`, async () => {
    identity = await bootIdentityApp();
    const owner = await ownerWithPasskey(identity);
    // Past the window of whatever the setup counted.
    identity.clock.advance({ seconds: FINISH_LIMIT.windowSeconds });
    const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
    for (let i = 0; i < FINISH_LIMIT.limit; i++) {
      const miss = await finish(identity, SIGN_IN_FINISH, { ceremonyId: testUuidV7(), credential: {} }, {});
      expect(errorOf(miss)).toMatchObject({ status: 400, code: 'challenge_invalid' });
    }

    const denied = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
    expectRateLimited(denied, FINISH_LIMIT.windowSeconds);
    expect(setCookiesOf(denied)).toContain(CLEARED_CEREMONY_COOKIE);
    expect(setCookiesOf(denied).some((c) => c.startsWith('__Host-tessera_session='))).toBe(false);
    // Refused at stage 8: the ceremony was neither claimed nor consumed.
    expect((await challengeOf(identity, attempt.ceremonyId))['state']).toBe('pending');
    expect(await rejectionsOf(identity, attempt.ceremonyId)).toHaveLength(0);

    identity.clock.advance({ seconds: FINISH_LIMIT.windowSeconds });
    const signedIn = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.userId).toBe(owner.userId);
  });
});
