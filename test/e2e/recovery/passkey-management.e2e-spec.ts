import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import {
  bootIdentityApp,
  seedPasskeySession,
  sessionCookieOf,
  type IdentityTestApp,
} from '../../support/identity-app.js';
import {
  passkeyOwner,
  registerPasskey,
  sessionOf,
  signIn,
  stepUp,
  type TestSession,
} from '../../support/passkey-client.js';
import { auditsOf, errorCode, read, rowsOf, unsafe } from './recovery-e2e.support.js';

const PASSKEYS = '/identity/v1/passkeys';

describe('passkey management (routes 13–15)', () => {
  let identity: IdentityTestApp;
  beforeEach(async () => {
    identity = await bootIdentityApp();
  });
  afterEach(async () => identity?.close());

  /** A second passkey for `session`'s user (the session must be a recent passkey session). */
  async function addPasskey(session: TestSession, name: string, authenticator = new SoftwareAuthenticator()) {
    const res = await registerPasskey(identity, session, authenticator, { name });
    if (res.status !== 200) throw new Error(`registration failed: ${res.status} ${res.text}`);
    return { authenticator, passkeyId: res.body.passkey.id as string };
  }

  /** Another user with a passkey of their own. */
  async function stranger() {
    const session = await seedPasskeySession(identity);
    return { session, ...(await addPasskey(session, 'Stranger key')) };
  }

  async function credentialRow(id: string) {
    const [row] = await rowsOf(identity).sql(
      'select name, state, version, revoked_at from tessera_identity.credentials where id = ?',
      [id],
    );
    return row!;
  }

  it('lists only the caller’s passkeys, oldest first, as exact PasskeyViews without key material', async () => {
    const owner = await passkeyOwner(identity);
    identity.clock.advance({ minutes: 1 });
    const phone = await addPasskey(
      owner.session,
      'Phone',
      new SoftwareAuthenticator({ transports: ['hybrid', 'internal'], backupEligible: true, backedUp: true }),
    );
    const other = await stranger();

    const list = await read(identity, PASSKEYS, owner.session);
    expect(list.status).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(list.body).toEqual([
      {
        id: owner.passkeyId,
        name: 'Laptop',
        transports: ['internal'],
        backupEligible: false,
        backedUp: false,
        state: 'active',
        createdAt: '2026-07-14T08:15:30Z',
        lastUsedAt: '2026-07-14T08:15:30Z',
      },
      {
        id: phone.passkeyId,
        name: 'Phone',
        transports: ['hybrid', 'internal'],
        backupEligible: true,
        backedUp: true,
        state: 'active',
        createdAt: '2026-07-14T08:16:30Z',
      },
    ]);
    const stored = await rowsOf(identity).sql(
      'select web_authn_id, public_key from tessera_identity.credentials where user_id = ?',
      [owner.session.userId],
    );
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      const key = Buffer.from(row['public_key'] as Uint8Array);
      expect(list.text).not.toContain(String(row['web_authn_id']));
      expect(list.text).not.toContain(key.toString('base64url'));
      expect(list.text).not.toContain(key.toString('base64'));
    }
    expect(list.text).not.toContain(other.passkeyId);

    const theirs = await read(identity, PASSKEYS, other.session);
    expect(theirs.body.map((p: { id: string }) => p.id)).toEqual([other.passkeyId]);
    const anonymous = await read(identity, PASSKEYS);
    expect(anonymous.status).toBe(401);
    expect(errorCode(anonymous)).toBe('authentication_required');
  });

  it('renames an own passkey without step-up, counting the name in code points, and audits credential.renamed', async () => {
    const owner = await passkeyOwner(identity);
    const before = Number((await credentialRow(owner.passkeyId))['version']);
    identity.clock.advance({ minutes: 30 });
    const renamed = await unsafe(identity, 'patch', `${PASSKEYS}/${owner.passkeyId}`, owner.session).send({
      name: 'Work laptop',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      id: owner.passkeyId,
      name: 'Work laptop',
      transports: ['internal'],
      backupEligible: false,
      backedUp: false,
      state: 'active',
      createdAt: '2026-07-14T08:15:30Z',
      lastUsedAt: '2026-07-14T08:15:30Z',
    });
    expect(await credentialRow(owner.passkeyId)).toMatchObject({
      name: 'Work laptop',
      state: 'active',
      version: before + 1,
    });
    const emoji = '😀'.repeat(200);
    const wide = await unsafe(identity, 'patch', `${PASSKEYS}/${owner.passkeyId}`, owner.session).send({ name: emoji });
    expect(wide.status).toBe(200);
    expect(wide.body.name).toBe(emoji);
    expect(await auditsOf(identity, 'credential.renamed')).toEqual([
      {
        actor_type: 'user',
        actor_user_id: owner.session.userId,
        action: 'credential.renamed',
        target_type: 'credential',
        target_id: owner.passkeyId,
        outcome: 'succeeded',
        reason_code: null,
      },
      expect.objectContaining({ target_id: owner.passkeyId, outcome: 'succeeded' }),
    ]);
  });

  it('answers 400 request_invalid for a malformed name or credential id and changes nothing', async () => {
    const owner = await passkeyOwner(identity);
    const path = `${PASSKEYS}/${owner.passkeyId}`;
    for (const body of [
      { name: '' },
      { name: 'x'.repeat(201) },
      { name: '😀'.repeat(201) },
      { name: 'bell\u0007' },
      { name: 'del\u007f' },
      { name: 42 },
      { name: null },
      {},
      { name: 'ok', extra: true },
    ]) {
      const res = await unsafe(identity, 'patch', path, owner.session).send(body);
      expect([res.status, errorCode(res)]).toEqual([400, 'request_invalid']);
    }
    for (const id of [
      'not-a-uuid',
      owner.passkeyId.toUpperCase(),
      '3f2b6c1e-8d4a-4b7e-9c2d-5a6b7c8d9e0f', // a UUIDv4
    ]) {
      const renamed = await unsafe(identity, 'patch', `${PASSKEYS}/${id}`, owner.session).send({ name: 'Desk' });
      expect([renamed.status, errorCode(renamed)]).toEqual([400, 'request_invalid']);
      const revoked = await unsafe(identity, 'delete', `${PASSKEYS}/${id}`, owner.session);
      expect([revoked.status, errorCode(revoked)]).toEqual([400, 'request_invalid']);
    }
    expect(await credentialRow(owner.passkeyId)).toMatchObject({ name: 'Laptop', state: 'active' });
    expect(await auditsOf(identity, 'credential.renamed')).toEqual([]);
  });

  it('hides another user’s passkey, an unknown id and a revoked passkey behind an identical 404 not_found', async () => {
    const owner = await passkeyOwner(identity);
    const spare = await addPasskey(owner.session, 'Spare');
    const other = await stranger();
    const revoke = await unsafe(identity, 'delete', `${PASSKEYS}/${spare.passkeyId}`, owner.session);
    expect(revoke.status).toBe(200);

    const unknown = '01900000-0000-7000-8000-000000000000';
    for (const id of [other.passkeyId, unknown, spare.passkeyId]) {
      const renamed = await unsafe(identity, 'patch', `${PASSKEYS}/${id}`, owner.session).send({ name: 'Mine now' });
      expect([renamed.status, errorCode(renamed)]).toEqual([404, 'not_found']);
      const revoked = await unsafe(identity, 'delete', `${PASSKEYS}/${id}`, owner.session);
      expect([revoked.status, errorCode(revoked)]).toEqual([404, 'not_found']);
    }
    expect(await credentialRow(other.passkeyId)).toMatchObject({ name: 'Stranger key', state: 'active', version: 0 });
    expect(await credentialRow(spare.passkeyId)).toMatchObject({ name: 'Spare', state: 'revoked' });
    expect(await auditsOf(identity, 'credential.renamed')).toEqual([]);
    expect((await auditsOf(identity, 'credential.revoked')).map((a) => a['target_id'])).toEqual([spare.passkeyId]);
  });

  it('revokes a passkey only with a recent passkey: stale session → 403 step_up_required, after step-up → 200 revoked', async () => {
    const owner = await passkeyOwner(identity);
    identity.clock.advance({ minutes: 1 });
    const spare = await addPasskey(owner.session, 'Spare');
    identity.clock.advance({ minutes: 5 });

    const stale = await unsafe(identity, 'delete', `${PASSKEYS}/${spare.passkeyId}`, owner.session);
    expect([stale.status, errorCode(stale)]).toEqual([403, 'step_up_required']);
    expect(await credentialRow(spare.passkeyId)).toMatchObject({ state: 'active', version: 0, revoked_at: null });
    expect(await auditsOf(identity, 'credential.revoked')).toEqual([]);

    const stepped = await stepUp(identity, owner.session, owner.authenticator);
    expect(stepped.status).toBe(200);
    const recent = sessionOf(stepped);
    const revoked = await unsafe(identity, 'delete', `${PASSKEYS}/${spare.passkeyId}`, recent);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({
      id: spare.passkeyId,
      name: 'Spare',
      transports: ['internal'],
      backupEligible: false,
      backedUp: false,
      state: 'revoked',
      createdAt: '2026-07-14T08:16:30Z',
    });
    const row = await credentialRow(spare.passkeyId);
    expect(row['state']).toBe('revoked');
    expect(new Date(row['revoked_at'] as Date).toISOString()).toBe('2026-07-14T08:21:30.000Z');
    expect(await auditsOf(identity, 'credential.revoked')).toEqual([
      {
        actor_type: 'user',
        actor_user_id: owner.session.userId,
        action: 'credential.revoked',
        target_type: 'credential',
        target_id: spare.passkeyId,
        outcome: 'succeeded',
        reason_code: null,
      },
    ]);
    const list = await read(identity, PASSKEYS, recent);
    expect(list.body.map((p: { id: string; state: string }) => [p.id, p.state])).toEqual([
      [owner.passkeyId, 'active'],
      [spare.passkeyId, 'revoked'],
    ]);
  });

  it('refuses sign-in with a revoked passkey (401 invalid_credentials) while the other passkey still works', async () => {
    const owner = await passkeyOwner(identity);
    const spare = await addPasskey(owner.session, 'Spare');
    expect((await signIn(identity, spare.authenticator)).status).toBe(200);
    const revoked = await unsafe(identity, 'delete', `${PASSKEYS}/${spare.passkeyId}`, owner.session);
    expect(revoked.status).toBe(200);

    const refused = await signIn(identity, spare.authenticator);
    expect([refused.status, errorCode(refused)]).toEqual([401, 'invalid_credentials']);
    expect(sessionCookieOf(refused.headers)).toBeUndefined();
    expect((await signIn(identity, owner.authenticator)).status).toBe(200);
  });
});
