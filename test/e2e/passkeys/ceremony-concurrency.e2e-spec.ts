import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import type { Response } from 'supertest';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import { TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import {
  CLEARED_CEREMONY_COOKIE,
  REGISTRATION_FINISH,
  SIGN_IN_FINISH,
  STEP_UP_FINISH,
  STEP_UP_START,
  bootPasskeyApp,
  challengeOf,
  credentialRows,
  finish,
  freshSession,
  ownerWithPasskey,
  registrationAttempt,
  rejectionsOf,
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

const CONCURRENCY = 50;

const LOST_RACE = [
  [400, 'challenge_invalid'],
  [409, 'conflict'],
];

/**
 * Exactly one 200; every loser that reached the finish answers 400 `challenge_invalid` or 409
 * `conflict` and clears the ceremony cookie. `sessionRotated`: a loser arriving after the winner
 * rotated the caller's session is refused at credential resolution (401 `session_revoked`,
 * identity-http §2.1) before the finish runs.
 */
function expectOneWinner(results: Response[], options: { sessionRotated?: boolean } = {}): Response {
  const winners = results.filter((res) => res.status === 200);
  expect(winners).toHaveLength(1);
  for (const res of results) {
    if (res.status === 200) continue;
    const answer = [res.status, res.body.error.code];
    if (options.sessionRotated && res.status === 401) {
      expect(answer).toEqual([401, 'session_revoked']);
      continue;
    }
    expect(LOST_RACE).toContainEqual(answer);
    expect(setCookiesOf(res)).toContain(CLEARED_CEREMONY_COOKIE);
  }
  expect(setCookiesOf(winners[0]!)).toContain(CLEARED_CEREMONY_COOKIE);
  return winners[0]!;
}

describe('ceremony single consumption under concurrency (identity-model §11.1 CHALLENGE_SINGLE_CONSUMPTION)', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;

  beforeAll(async () => {
    identity = await bootPasskeyApp();
    owner = await ownerWithPasskey(identity);
  });
  afterAll(async () => identity?.close());

  it(`mints at most one session under ${CONCURRENCY} concurrent finishes of one sign-in ceremony`, async () => {
    const attempt = await signInAttempt(identity, owner.authenticator, { credentialId: owner.credentialId });
    const sessions = await sessionCount(identity, owner.userId);
    const signingPasskey = async () =>
      (await credentialRows(identity, owner.userId)).find((row) => row['web_authn_id'] === owner.credentialId);
    const before = await signingPasskey();
    const authenticated = () =>
      rowsOf(identity).count('audit_events', `action = 'credential.authenticated' and target_id = ?`, [
        String(before!['id']),
      ]);
    const audited = await authenticated();
    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, () =>
        finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] }),
      ),
    );
    const winner = expectOneWinner(results);
    expect(await sessionCount(identity, owner.userId)).toBe(sessions + 1);
    expect((await sessionRow(identity, winner.body.sessionId))['state']).toBe('active');
    const challenge = await challengeOf(identity, attempt.ceremonyId);
    expect([challenge['state'], challenge['version']]).toEqual(['consumed', 1]);
    expect(await rejectionsOf(identity, attempt.ceremonyId)).toHaveLength(0);
    const after = await signingPasskey();
    // Losers that read the credential after the winner see "their" counter as already used: that is
    // a lost race on the ceremony (400/409 above), never a clone.
    expect(after!['state']).toBe('active');
    expect(Number(after!['sign_count'])).toBe(Number(before!['sign_count']) + 1);
    expect(after!['version']).toBe(Number(before!['version']) + 1);
    expect(await authenticated()).toBe(audited + 1);
  });

  it(`rotates the session at most once under ${CONCURRENCY} concurrent finishes of one step-up ceremony`, async () => {
    const session = await freshSession(identity, owner);
    const started = await startCeremony(identity, STEP_UP_START, session);
    const credential = owner.authenticator.getAssertion(started.publicKey as never, {
      origin: TEST_ORIGIN,
      credentialId: owner.credentialId,
    });
    const sessions = await sessionCount(identity, owner.userId);
    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, () =>
        finish(
          identity,
          STEP_UP_FINISH,
          { ceremonyId: started.ceremonyId, credential },
          { session, cookies: [started.cookie] },
        ),
      ),
    );
    const winner = expectOneWinner(results, { sessionRotated: true });
    expect(winner.body.assurance).toBe('step_up');
    expect(await sessionCount(identity, owner.userId)).toBe(sessions + 1);
    const old = await sessionRow(identity, session.sessionId);
    expect([old['state'], old['rotated_to_id']]).toEqual(['rotated', winner.body.sessionId]);
  });

  it(`registers at most one passkey under ${CONCURRENCY} concurrent finishes of one registration ceremony`, async () => {
    const session = await freshSession(identity, owner);
    const before = (await credentialRows(identity, owner.userId)).length;
    const started = await registrationAttempt(identity, session, new SoftwareAuthenticator());
    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, () =>
        finish(identity, REGISTRATION_FINISH, started.body, { session, cookies: [started.cookie] }),
      ),
    );
    expectOneWinner(results);
    expect(await credentialRows(identity, owner.userId)).toHaveLength(before + 1);
    expect((await challengeOf(identity, started.ceremonyId))['state']).toBe('consumed');
  });

  it('registers one passkey when two FED1 registrations of one user finish concurrently (FEDERATED_FIRST_PASSKEY_SINGLE)', async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => seedUser(identity)));
    await Promise.all(
      users.map(async (userId) => {
        const federated = await seedSession(identity, userId, 'oidc');
        const ceremonies = [
          await registrationAttempt(identity, federated, new SoftwareAuthenticator()),
          await registrationAttempt(identity, federated, new SoftwareAuthenticator()),
        ];
        const results = await Promise.all(
          ceremonies.map((ceremony) =>
            finish(identity, REGISTRATION_FINISH, ceremony.body, { session: federated, cookies: [ceremony.cookie] }),
          ),
        );
        expect(results.map((res) => res.status).sort()).toEqual([200, 403]);
        const loser = results.findIndex((res) => res.status === 403);
        expect(results[loser]!.body.error.code).toBe('step_up_required');
        // The loser lost either at the gate's re-check or at the store's re-check under the user lock.
        const challenge = await challengeOf(identity, ceremonies[loser]!.ceremonyId);
        expect(challenge['state']).toBe('failed');
        expect(['step_up_required', 'webauthn_store_rejected']).toContain(challenge['failure_reason']);
        const audits = await rejectionsOf(identity, ceremonies[loser]!.ceremonyId);
        expect(audits.map((audit) => audit['reason_code'])).toEqual([challenge['failure_reason']]);
        expect(await credentialRows(identity, userId)).toHaveLength(1);
        expect((await sessionRow(identity, federated.sessionId))['state']).toBe('active');
      }),
    );
  });
});
