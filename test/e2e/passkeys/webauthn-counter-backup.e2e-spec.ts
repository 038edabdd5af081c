import { describe, it, expect } from '@jest/globals';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post, signIn } from '../../support/passkey-client.js';
import {
  CLEARED_CEREMONY_COOKIE,
  SIGN_IN_FINISH,
  SIGN_IN_START,
  STEP_UP_FINISH,
  STEP_UP_START,
  challengeOf,
  credentialRows,
  errorOf,
  expectCeremonyRejected,
  finish,
  freshSession,
  inviteeWithPasskey,
  rowsOf,
  sessionCount,
  setCookiesOf,
  signInAttempt,
  startCeremony,
  type PasskeyUser,
} from './passkey-fixtures.js';
import { usePasskeySuite } from './passkey-suite.support.js';

describe('WebAuthn attacks on passkey ceremonies (routes 2–7)', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;
  let organizationId: string;
  usePasskeySuite((suite) => ({ identity, owner, organizationId } = suite));

  describe('counter regression and backup flags', () => {
    it('quarantines a passkey whose signature counter regressed (cloned authenticator): 401, suspected_clone, audited, no session', async () => {
      const victim = await inviteeWithPasskey(identity, organizationId, owner.userId);
      const stored = (await credentialRows(identity, victim.userId))[0]!;
      expect(Number(stored['sign_count'])).toBe(1);
      victim.authenticator.setSignCount(victim.credentialId, 0);
      const sessions = await sessionCount(identity, victim.userId);
      const attempt = await signInAttempt(identity, victim.authenticator, { credentialId: victim.credentialId });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      expect(errorOf(res)).toMatchObject({ status: 401, code: 'invalid_credentials' });
      expect(setCookiesOf(res)).toContain(CLEARED_CEREMONY_COOKIE);
      const [credential] = await credentialRows(identity, victim.userId);
      expect({ state: credential!['state'], signCount: Number(credential!['sign_count']) }).toEqual({
        state: 'suspected_clone',
        signCount: 1,
      });
      const quarantined = await rowsOf(identity).sql(
        `select * from tessera_identity.audit_events where action = 'credential.quarantined' and target_id = ?`,
        [String(credential!['id'])],
      );
      expect(
        quarantined.map((a) => [a['outcome'], a['target_type'], a['actor_type'], a['actor_user_id'], a['reason_code']]),
      ).toEqual([['denied', 'credential', 'user', victim.userId, 'counter_regression']]);
      expect((await challengeOf(identity, attempt.ceremonyId))['state']).toBe('consumed');
      expect(await sessionCount(identity, victim.userId)).toBe(sessions);

      // The genuine authenticator, now ahead again, is refused too: the passkey stays quarantined.
      victim.authenticator.setSignCount(victim.credentialId, 10);
      const again = await signInAttempt(identity, victim.authenticator, { credentialId: victim.credentialId });
      const refused = await finish(identity, SIGN_IN_FINISH, again.body, { cookies: [again.cookie] });
      await expectCeremonyRejected(identity, refused, again.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'credential_not_active',
      });
    });

    it('quarantines a passkey whose counter was downgraded to 0 (it used to reset the stored counter and disarm clone detection)', async () => {
      const victim = await inviteeWithPasskey(identity, organizationId, owner.userId);
      victim.authenticator.setSignCount(victim.credentialId, 4);
      expect((await signIn(identity, victim.authenticator, { credentialId: victim.credentialId })).status).toBe(200);
      expect(Number((await credentialRows(identity, victim.userId))[0]!['sign_count'])).toBe(5);
      const sessions = await sessionCount(identity, victim.userId);
      const attempt = await signInAttempt(identity, victim.authenticator, {
        credentialId: victim.credentialId,
        overrides: { signCount: 0 },
      });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      expect(errorOf(res)).toMatchObject({ status: 401, code: 'invalid_credentials' });
      const [credential] = await credentialRows(identity, victim.userId);
      expect({ state: credential!['state'], signCount: Number(credential!['sign_count']) }).toEqual({
        state: 'suspected_clone',
        signCount: 5,
      });
      expect(await sessionCount(identity, victim.userId)).toBe(sessions);
    });

    it('accepts a zero counter while the stored counter is zero too, and a counter that moves forward', async () => {
      const authenticator = new SoftwareAuthenticator({ counterMode: 'zero' });
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId, authenticator);
      expect(Number((await credentialRows(identity, user.userId))[0]!['sign_count'])).toBe(0);
      const again = await signIn(identity, authenticator, { credentialId: user.credentialId });
      expect(again.status).toBe(200);
      const attempt = await signInAttempt(identity, authenticator, {
        credentialId: user.credentialId,
        overrides: { signCount: 2 },
      });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      expect(res.status).toBe(200);
      const [credential] = await credentialRows(identity, user.userId);
      expect({ state: credential!['state'], signCount: Number(credential!['sign_count']) }).toEqual({
        state: 'active',
        signCount: 2,
      });
    });

    it('quarantines on a counter regression during step-up and leaves the session unrotated', async () => {
      const victim = await inviteeWithPasskey(identity, organizationId, owner.userId);
      const session = await freshSession(identity, victim);
      victim.authenticator.setSignCount(victim.credentialId, 1);
      const started = await startCeremony(identity, STEP_UP_START, session);
      const credential = victim.authenticator.getAssertion(started.publicKey as never, {
        origin: 'http://localhost:3000',
        credentialId: victim.credentialId,
      });
      const res = await finish(
        identity,
        STEP_UP_FINISH,
        { ceremonyId: started.ceremonyId, credential },
        { session, cookies: [started.cookie] },
      );
      expect(errorOf(res)).toMatchObject({ status: 401, code: 'invalid_credentials' });
      expect((await credentialRows(identity, victim.userId))[0]!['state']).toBe('suspected_clone');
      expect((await challengeOf(identity, started.ceremonyId))['state']).toBe('consumed');
      const row = await rowsOf(identity).sql('select state, assurance from tessera_identity.sessions where id = ?', [
        session.sessionId,
      ]);
      expect(row).toEqual([{ state: 'active', assurance: 'passkey' }]);
    });

    it('accepts an authenticator that always reports a zero counter', async () => {
      const authenticator = new SoftwareAuthenticator({ counterMode: 'zero' });
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId, authenticator);
      const second = await signIn(identity, authenticator, { credentialId: user.credentialId });
      expect(second.status).toBe(200);
      expect((await credentialRows(identity, user.userId))[0]!['state']).toBe('active');
    });

    it('rejects an assertion that claims backup eligibility the passkey was registered without (BE flip)', async () => {
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId);
      user.authenticator.setBackupState(user.credentialId, { backupEligible: true });
      const attempt = await signInAttempt(identity, user.authenticator, { credentialId: user.credentialId });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'backup_eligibility_changed',
      });
      expect((await credentialRows(identity, user.userId))[0]!['backup_eligible']).toBe(false);
    });

    it('rejects an assertion that drops the backup eligibility the passkey was registered with (BE flip)', async () => {
      const authenticator = new SoftwareAuthenticator({ backupEligible: true, backedUp: true });
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId, authenticator);
      authenticator.setBackupState(user.credentialId, { backupEligible: false, backedUp: false });
      const attempt = await signInAttempt(identity, authenticator, { credentialId: user.credentialId });
      const res = await finish(identity, SIGN_IN_FINISH, attempt.body, { cookies: [attempt.cookie] });
      await expectCeremonyRejected(identity, res, attempt.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'backup_eligibility_changed',
      });
    });

    it('records a change of backup state on an eligible passkey', async () => {
      const authenticator = new SoftwareAuthenticator({ backupEligible: true, backedUp: false });
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId, authenticator);
      expect((await credentialRows(identity, user.userId))[0]!['backed_up']).toBe(false);
      authenticator.setBackupState(user.credentialId, { backedUp: true });
      expect((await signIn(identity, authenticator, { credentialId: user.credentialId })).status).toBe(200);
      const [credential] = await credentialRows(identity, user.userId);
      expect([credential!['backup_eligible'], credential!['backed_up']]).toEqual([true, true]);
    });
  });

  it('stores only the SHA-256 of each fresh sign-in challenge', async () => {
    const first = await post(identity, SIGN_IN_START);
    const second = await post(identity, SIGN_IN_START);
    expect(first.body.publicKey.challenge).not.toBe(second.body.publicKey.challenge);
    expect(first.body.ceremonyId).not.toBe(second.body.ceremonyId);
    const rows = await rowsOf(identity).sql(
      'select challenge_digest_encoded from tessera_identity.challenges where id in (?, ?)',
      [first.body.ceremonyId, second.body.ceremonyId],
    );
    // Only the SHA-256 of each challenge is stored.
    const sha256 = (challenge: string) =>
      createHash('sha256').update(Buffer.from(challenge, 'base64url')).digest('base64url');
    expect(new Set(rows.map((row) => row['challenge_digest_encoded']))).toEqual(
      new Set([sha256(first.body.publicKey.challenge), sha256(second.body.publicKey.challenge)]),
    );
  });
});
