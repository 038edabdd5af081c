import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { DEFAULT_RATE_LIMITS } from '@tessera/identity';
import { bootIdentityApp, sessionCookieOf, type IdentityTestApp } from '../../support/identity-app.js';
import { passkeyOwner, post, registrationStart, sessionOf } from '../../support/passkey-client.js';
import {
  auditsOf,
  errorCode,
  kernelOf,
  keyedDigest,
  plusMinutes,
  read,
  RECOVERY_CODE,
  recoveryCodeRows,
  rowsOf,
  SESSION_CREATED_KEYS,
  unsafe,
} from './recovery-e2e.support.js';

const USE = '/identity/v1/recovery/codes/use';
const REPLACE = '/identity/v1/recovery/codes/replace';

/** `code` with its secret half replaced by another well-formed 16-byte secret. */
function wrongSecret(code: string): string {
  return `${code.split('.')[0]}.${randomBytes(16).toString('base64url')}`;
}

describe('recovery codes (routes 16–17)', () => {
  let identity: IdentityTestApp;
  beforeEach(async () => {
    identity = await bootIdentityApp({ rateLimits: { recovery_code: { limit: 1000, windowSeconds: 60 } } });
  });
  afterEach(async () => identity?.close());

  const use = (code: string, extra: Record<string, string> = {}) => post(identity, USE).send({ code, ...extra });

  const codeRows = (userId: string) => recoveryCodeRows(identity, userId);

  const row = async (code: string) =>
    (
      await rowsOf(identity).sql(
        'select state, version, consumed_at from tessera_identity.recovery_codes where public_selector = ?',
        [code.split('.')[0]],
      )
    )[0];

  const recoverySessions = (userId: string) =>
    rowsOf(identity).count('sessions', "user_id = ? and authentication_method = 'recovery_code'", [userId]);

  it('issues ten distinct 128-bit codes at enrollment and stores only their keyed digests', async () => {
    const owner = await passkeyOwner(identity);
    expect(owner.codes).toHaveLength(10);
    expect(new Set(owner.codes).size).toBe(10);
    for (const code of owner.codes) {
      expect(code).toMatch(RECOVERY_CODE);
      expect(Buffer.from(code.split('.')[1]!, 'base64url')).toHaveLength(16);
    }
    const rows = await codeRows(owner.session.userId);
    expect(rows).toHaveLength(10);
    const pepper = kernelOf(identity).keys.recoveryPepper.current;
    const bySelector = new Map(rows.map((r) => [r['public_selector'], r]));
    for (const code of owner.codes) {
      const [selector, secret] = code.split('.') as [string, string];
      const stored = bySelector.get(selector)!;
      expect(stored).toMatchObject({
        generation: 0,
        state: 'active',
        secret_digest_algorithm: 'hmac-sha256',
        secret_digest_key_version: pepper.version,
      });
      expect(stored['secret_digest_encoded']).toBe(
        keyedDigest(pepper.key, 'tessera-recovery-code-v1', selector, Buffer.from(secret, 'base64url')),
      );
    }

    const tables = await rowsOf(identity).sql(
      "select table_name from information_schema.tables where table_schema = 'tessera_identity' and table_type = 'BASE TABLE'",
    );
    expect(tables.length).toBeGreaterThan(10);
    for (const { table_name: table } of tables) {
      const dump = (
        await rowsOf(identity).sql(`select row_to_json(t)::text as row from tessera_identity."${String(table)}" t`)
      )
        .map((r) => String(r['row']))
        .join('\n');
      for (const code of owner.codes) {
        expect(dump).not.toContain(code);
        expect(dump).not.toContain(code.split('.')[1]);
      }
    }
  });

  it('exchanges a code for a 15-minute restricted recovery session with its cookie, then the session expires', async () => {
    const owner = await passkeyOwner(identity);
    identity.clock.advance({ minutes: 1 });
    const used = await use(owner.codes[3]!, { deviceLabel: 'Kiosk', devicePlatform: 'Linux' });
    expect(used.status).toBe(200);
    expect(Object.keys(used.body).sort()).toEqual(SESSION_CREATED_KEYS);
    const at = '2026-07-14T08:16:30Z';
    expect(used.body).toMatchObject({
      userId: owner.session.userId,
      assurance: 'recovery',
      authenticatedAt: at,
      idleExpiresAt: plusMinutes(at, 15),
      absoluteExpiresAt: plusMinutes(at, 15),
    });
    expect(used.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessionCookieOf(used.headers)).toMatch(new RegExp(`^${used.body.sessionId}\\.[A-Za-z0-9_-]{43}$`));
    const recovery = sessionOf(used);

    const [stored] = await rowsOf(identity).sql(
      'select assurance, authentication_method, state, label, platform, idle_expires_at, absolute_expires_at from tessera_identity.sessions where id = ?',
      [recovery.sessionId],
    );
    expect(stored).toMatchObject({
      assurance: 'recovery',
      authentication_method: 'recovery_code',
      state: 'active',
      label: 'Kiosk',
      platform: 'Linux',
    });
    expect(new Date(stored!['idle_expires_at'] as Date).getTime()).toBe(new Date(plusMinutes(at, 15)).getTime());
    expect(new Date(stored!['absolute_expires_at'] as Date).getTime()).toBe(new Date(plusMinutes(at, 15)).getTime());
    const consumed = await row(owner.codes[3]!);
    expect(consumed).toMatchObject({ state: 'consumed', version: 1 });
    expect(new Date(consumed!['consumed_at'] as Date).toISOString()).toBe('2026-07-14T08:16:30.000Z');
    expect((await codeRows(owner.session.userId)).filter((r) => r['state'] === 'active')).toHaveLength(9);
    expect(await auditsOf(identity, 'recovery.code_used')).toEqual([
      {
        actor_type: 'user',
        actor_user_id: owner.session.userId,
        action: 'recovery.code_used',
        target_type: 'user',
        target_id: owner.session.userId,
        outcome: 'succeeded',
        reason_code: null,
      },
    ]);

    for (const res of [
      await read(identity, '/identity/v1/me', recovery),
      await read(identity, '/identity/v1/passkeys', recovery),
      await read(identity, '/identity/v1/sessions', recovery),
      await unsafe(identity, 'post', REPLACE, recovery).send({}),
    ]) {
      expect([res.status, errorCode(res)]).toEqual([401, 'authentication_required']);
    }
    expect((await use(owner.codes[3]!)).status).toBe(401);

    identity.clock.set(new Date(new Date(plusMinutes(at, 15)).getTime() - 1000));
    expect((await registrationStart(identity, recovery)).res.status).toBe(200);
    identity.clock.advance({ seconds: 2 });
    const expired = await registrationStart(identity, recovery);
    expect([expired.res.status, errorCode(expired.res)]).toEqual([401, 'session_expired']);
  });

  it('rejects a reused code with 401 invalid_credentials and mints nothing', async () => {
    const owner = await passkeyOwner(identity);
    expect((await use(owner.codes[0]!)).status).toBe(200);
    const reused = await use(owner.codes[0]!);
    expect([reused.status, errorCode(reused)]).toEqual([401, 'invalid_credentials']);
    expect(sessionCookieOf(reused.headers)).toBeUndefined();
    expect(await recoverySessions(owner.session.userId)).toBe(1);
    expect(await auditsOf(identity, 'recovery.code_used')).toHaveLength(1);
  });

  it('consumes nothing for a wrong secret under a valid selector; the code still works afterwards', async () => {
    const owner = await passkeyOwner(identity);
    const code = owner.codes[5]!;
    for (const attempt of [
      wrongSecret(code),
      wrongSecret(code),
      `${randomBytes(8).toString('base64url')}.${code.split('.')[1]}`,
      `${code}x`,
      'x'.repeat(34),
    ]) {
      const res = await use(attempt);
      expect([res.status, errorCode(res)]).toEqual([401, 'invalid_credentials']);
    }
    for (const body of [{ code: 'short' }, { code: 'x'.repeat(129) }, {}, { code, extra: 1 }]) {
      const res = await post(identity, USE).send(body);
      expect([res.status, errorCode(res)]).toEqual([400, 'request_invalid']);
    }
    expect(await row(code)).toMatchObject({ state: 'active', version: 0, consumed_at: null });
    expect(await recoverySessions(owner.session.userId)).toBe(0);
    expect(await auditsOf(identity, 'recovery.code_used')).toEqual([]);
    expect((await use(code)).status).toBe(200);
  });

  it('mints at most one session under 50 concurrent uses of one code', async () => {
    const owner = await passkeyOwner(identity);
    const results = await Promise.all(Array.from({ length: 50 }, () => use(owner.codes[7]!)));
    const statuses = results.map((res) => `${res.status} ${errorCode(res) ?? ''}`.trim());
    expect(statuses.filter((s) => s === '200')).toHaveLength(1);
    expect(statuses.filter((s) => s === '401 invalid_credentials')).toHaveLength(49);
    expect(await recoverySessions(owner.session.userId)).toBe(1);
    expect(await row(owner.codes[7]!)).toMatchObject({ state: 'consumed', version: 1 });
    expect(await auditsOf(identity, 'recovery.code_used')).toHaveLength(1);
  });
});

describe('recovery code rate limit (policy recovery_code, default configuration)', () => {
  let identity: IdentityTestApp;
  beforeEach(async () => {
    identity = await bootIdentityApp();
  });
  afterEach(async () => identity?.close());

  it('denies the limit + 1st attempt with 429 and Retry-After before the code is verified', async () => {
    const { limit, windowSeconds } = DEFAULT_RATE_LIMITS.recovery_code;
    const owner = await passkeyOwner(identity);
    const code = owner.codes[0]!;
    for (let i = 0; i < limit; i++) {
      const res = await post(identity, USE).send({ code: wrongSecret(code) });
      expect([res.status, errorCode(res)]).toEqual([401, 'invalid_credentials']);
    }
    for (const body of [{ code }, { code: 'short' }]) {
      const denied = await post(identity, USE).send(body);
      expect([denied.status, errorCode(denied)]).toEqual([429, 'rate_limited']);
      expect(denied.body.error.retryable).toBe(true);
      const retryAfter = Number(denied.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
      expect(sessionCookieOf(denied.headers)).toBeUndefined();
    }
    const [stored] = await rowsOf(identity).sql(
      'select state, version from tessera_identity.recovery_codes where public_selector = ?',
      [code.split('.')[0]],
    );
    expect(stored).toMatchObject({ state: 'active', version: 0 });
    expect(await rowsOf(identity).count('sessions', "authentication_method = 'recovery_code'")).toBe(0);

    identity.clock.advance({ seconds: windowSeconds });
    expect((await post(identity, USE).send({ code })).status).toBe(200);
  });
});
