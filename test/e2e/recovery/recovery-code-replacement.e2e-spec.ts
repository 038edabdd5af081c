import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import {
  passkeyOwner,
  post,
  registerPasskey,
  sessionOf,
  signIn,
  stepUp,
  type TestSession,
} from '../../support/passkey-client.js';
import { auditsOf, errorCode, read, RECOVERY_CODE, recoveryCodeRows, rowsOf, unsafe } from './recovery-e2e.support.js';

const USE = '/identity/v1/recovery/codes/use';
const REPLACE = '/identity/v1/recovery/codes/replace';
const CLEARED = '__Host-tessera_session=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax';

describe('recovery code replacement and recovery enrollment (route 16, registration in a recovery session)', () => {
  let identity: IdentityTestApp;
  beforeEach(async () => {
    identity = await bootIdentityApp({ rateLimits: { recovery_code: { limit: 1000, windowSeconds: 60 } } });
  });
  afterEach(async () => identity?.close());

  const use = (code: string) => post(identity, USE).send({ code });
  const codeRows = (userId: string) => recoveryCodeRows(identity, userId);

  it('replaces the codes only with a recent passkey, bumping the generation and revoking the previous one', async () => {
    const owner = await passkeyOwner(identity);
    const replacedBefore = (await auditsOf(identity, 'recovery.codes_replaced')).length;
    identity.clock.advance({ minutes: 6 });
    const stale = await unsafe(identity, 'post', REPLACE, owner.session).send({});
    expect([stale.status, errorCode(stale)]).toEqual([403, 'step_up_required']);
    expect((await codeRows(owner.session.userId)).map((r) => `${r['generation']}:${r['state']}`)).toEqual(
      Array(10).fill('0:active'),
    );

    const recent = sessionOf(await stepUp(identity, owner.session, owner.authenticator));
    const replaced = await unsafe(identity, 'post', REPLACE, recent).send({});
    expect(replaced.status).toBe(200);
    expect(Object.keys(replaced.body).sort()).toEqual(['codes', 'generation']);
    expect(replaced.body.generation).toBe(1);
    const fresh = replaced.body.codes as string[];
    expect(fresh).toHaveLength(10);
    expect(new Set([...fresh, ...owner.codes]).size).toBe(20);
    for (const code of fresh) expect(code).toMatch(RECOVERY_CODE);
    const rows = await codeRows(owner.session.userId);
    expect(rows.filter((r) => r['generation'] === 0).map((r) => r['state'])).toEqual(Array(10).fill('revoked'));
    expect(rows.filter((r) => r['generation'] === 1).map((r) => r['state'])).toEqual(Array(10).fill('active'));
    const audits = await auditsOf(identity, 'recovery.codes_replaced');
    expect(audits).toHaveLength(replacedBefore + 1);
    expect(audits.at(-1)).toMatchObject({
      actor_type: 'user',
      actor_user_id: owner.session.userId,
      target_type: 'user',
      target_id: owner.session.userId,
      outcome: 'succeeded',
    });

    const old = await use(owner.codes[0]!);
    expect([old.status, errorCode(old)]).toEqual([401, 'invalid_credentials']);
    expect((await use(fresh[0]!)).status).toBe(200);
  });

  it('answers 409 conflict for a stale expectedGeneration and 400 for a malformed one, changing nothing', async () => {
    const owner = await passkeyOwner(identity);
    const first = await unsafe(identity, 'post', REPLACE, owner.session).send({ expectedGeneration: 0 });
    expect([first.status, first.body.generation]).toEqual([200, 1]);

    const stale = await unsafe(identity, 'post', REPLACE, owner.session).send({ expectedGeneration: 0 });
    expect([stale.status, errorCode(stale)]).toEqual([409, 'conflict']);
    expect(stale.body.error.retryable).toBe(true);
    for (const body of [
      { expectedGeneration: -1 },
      { expectedGeneration: 1.5 },
      { expectedGeneration: '1' },
      { expectedGeneration: null },
      { expectedGeneration: 1, extra: true },
      [],
    ]) {
      const res = await unsafe(identity, 'post', REPLACE, owner.session).send(body);
      expect([res.status, errorCode(res)]).toEqual([400, 'request_invalid']);
    }
    const rows = await codeRows(owner.session.userId);
    expect(rows.filter((r) => r['state'] === 'active').map((r) => r['generation'])).toEqual(Array(10).fill(1));
    expect(rows).toHaveLength(20);

    const next = await unsafe(identity, 'post', REPLACE, owner.session).send({ expectedGeneration: 1 });
    expect([next.status, next.body.generation]).toEqual([200, 2]);
  });

  it('re-enrolling in a recovery session replaces the codes and revokes every session of the user', async () => {
    const owner = await passkeyOwner(identity);
    const [epochBefore] = await rowsOf(identity).sql('select session_epoch from tessera_identity.users where id = ?', [
      owner.session.userId,
    ]);
    const recovery: TestSession = sessionOf(await use(owner.codes[0]!));
    const authenticator = new SoftwareAuthenticator();
    const enrolled = await registerPasskey(identity, recovery, authenticator, { name: 'Replacement' });
    expect(enrolled.status).toBe(200);
    expect(Object.keys(enrolled.body).sort()).toEqual(['passkey', 'replacementRecoveryCodes']);
    expect(enrolled.body.passkey).toMatchObject({ name: 'Replacement', state: 'active' });
    expect(enrolled.headers['set-cookie']).toContain(CLEARED);
    const replacement = enrolled.body.replacementRecoveryCodes as string[];
    expect(new Set(replacement).size).toBe(10);
    for (const code of replacement) expect(owner.codes).not.toContain(code);

    const rows = await codeRows(owner.session.userId);
    expect(
      rows
        .filter((r) => r['generation'] === 0)
        .map((r) => r['state'])
        .sort(),
    ).toEqual(['consumed', ...Array(9).fill('revoked')]);
    expect(rows.filter((r) => r['generation'] === 1).map((r) => r['state'])).toEqual(Array(10).fill('active'));
    const sessions = await rowsOf(identity).sql(
      "select id, state, revoked_reason from tessera_identity.sessions where user_id = ? and state <> 'rotated'",
      [owner.session.userId],
    );
    expect(sessions.map((s) => s['id'])).toEqual(expect.arrayContaining([owner.session.sessionId, recovery.sessionId]));
    for (const session of sessions)
      expect(session).toMatchObject({ state: 'revoked', revoked_reason: 'recovery_enrollment_completed' });
    const [epochAfter] = await rowsOf(identity).sql('select session_epoch from tessera_identity.users where id = ?', [
      owner.session.userId,
    ]);
    expect(Number(epochAfter!['session_epoch'])).toBe(Number(epochBefore!['session_epoch']) + 1);
    expect(await auditsOf(identity, 'recovery.enrollment_completed')).toContainEqual(
      expect.objectContaining({
        actor_user_id: owner.session.userId,
        target_id: owner.session.userId,
        reason_code: 'recovery',
      }),
    );

    const oldFull = await read(identity, '/identity/v1/me', owner.session);
    expect([oldFull.status, errorCode(oldFull)]).toEqual([401, 'session_revoked']);
    const oldRecovery = await post(identity, '/identity/v1/logout', recovery);
    expect([oldRecovery.status, errorCode(oldRecovery)]).toEqual([401, 'session_revoked']);
    for (const code of [owner.codes[0]!, owner.codes[1]!]) {
      const res = await use(code);
      expect([res.status, errorCode(res)]).toEqual([401, 'invalid_credentials']);
    }
    expect((await use(replacement[0]!)).status).toBe(200);
    expect((await signIn(identity, authenticator)).status).toBe(200);
  });
});
