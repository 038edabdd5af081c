import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { DEFAULT_RATE_LIMITS } from '@tessera/identity';
import { bootIdentityApp, sessionCookieOf, type IdentityTestApp } from '../../support/identity-app.js';
import { bootIdentityHostApp } from '../../support/identity-host-app.js';
import { identityKernelOf } from '../../support/identity-kernel.js';
import { passkeyOwner, post, registrationStart, sessionOf } from '../../support/passkey-client.js';
import {
  auditsOf,
  errorCode,
  kernelOf,
  keyedDigest,
  plusMinutes,
  read,
  RECOVERY_CODE,
  recoveryCodeDigest,
  recoveryCodeRow,
  recoveryCodeRows,
  recoverySecretOf,
  rowsOf,
  SESSION_CREATED_KEYS,
  unsafe,
  wrongRecoveryCode,
} from './recovery-e2e.support.js';

const USE = '/identity/v1/recovery/codes/use';
const REPLACE = '/identity/v1/recovery/codes/replace';

describe('recovery codes (routes 16–17)', () => {
  let identity: IdentityTestApp;
  beforeEach(async () => {
    identity = await bootIdentityApp({ rateLimits: { recovery_code: { limit: 1000, windowSeconds: 60 } } });
  });
  afterEach(async () => identity?.close());

  const use = (code: string, extra: Record<string, string> = {}) => post(identity, USE).send({ code, ...extra });

  const codeRows = (userId: string) => recoveryCodeRows(identity, userId);

  const row = (code: string) => recoveryCodeRow(identity, code);

  const recoverySessions = (userId: string) =>
    rowsOf(identity).count('sessions', "user_id = ? and authentication_method = 'recovery_code'", [userId]);

  it('issues ten distinct 128-bit codes at enrollment and stores only their keyed digests', async () => {
    const owner = await passkeyOwner(identity);
    expect(owner.codes).toHaveLength(10);
    expect(new Set(owner.codes).size).toBe(10);
    for (const code of owner.codes) expect(code).toMatch(RECOVERY_CODE);
    const rows = await codeRows(owner.session.userId);
    expect(rows).toHaveLength(10);
    const pepper = kernelOf(identity).keys.recoveryPepper.current;
    const byDigest = new Map(rows.map((r) => [r['secret_digest_encoded'], r]));
    for (const code of owner.codes) {
      expect(recoverySecretOf(code)).toHaveLength(16);
      const stored = byDigest.get(keyedDigest(pepper.key, 'tessera-recovery-code-v2', recoverySecretOf(code)));
      expect(stored).toMatchObject({
        generation: 0,
        state: 'active',
        public_selector: null,
        secret_digest_algorithm: 'hmac-sha256',
        secret_digest_key_version: pepper.version,
      });
      expect(stored!['secret_digest_encoded']).toBe(recoveryCodeDigest(identity, code));
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
        expect(dump).not.toContain(code.replaceAll('-', ''));
        expect(dump).not.toContain(recoverySecretOf(code).toString('base64url'));
        expect(dump).not.toContain(recoverySecretOf(code).toString('hex'));
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

  it('consumes nothing for a wrong or malformed code; the code still works afterwards', async () => {
    const owner = await passkeyOwner(identity);
    const code = owner.codes[5]!;
    for (const attempt of [
      wrongRecoveryCode(code),
      wrongRecoveryCode(code, 0),
      wrongRecoveryCode(code, 28),
      `${code}x`,
      `${code.slice(0, -1)}U`,
      code.replaceAll('-', '.'),
      'x'.repeat(34),
      `${randomBytes(8).toString('base64url')}.${recoverySecretOf(code).toString('base64url')}`,
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

  it('accepts a code typed by hand: any case, no dashes or spaces between groups, O for 0 and I or L for 1', async () => {
    const owner = await passkeyOwner(identity);
    const code = owner.codes.find((c) => /[01]/.test(c));
    expect(code).toBeDefined();
    const typed = ` ${code!
      .replaceAll('-', '')
      .replaceAll('0', 'o')
      .replaceAll('1', 'L')
      .toLowerCase()
      .replace(/(.{4})/g, '$1 ')}`;
    expect(typed).not.toBe(code);
    const used = await use(typed);
    expect(used.status).toBe(200);
    expect(await row(code!)).toMatchObject({ state: 'consumed', version: 1 });
    const again = await use(code!);
    expect([again.status, errorCode(again)]).toEqual([401, 'invalid_credentials']);
  });

  it('still accepts a code of the earlier <selector>.<secret> format until it is replaced', async () => {
    const owner = await passkeyOwner(identity);
    const pepper = kernelOf(identity).keys.recoveryPepper.current;
    const selector = randomBytes(8).toString('base64url');
    const secret = randomBytes(16);
    await rowsOf(identity).sql(
      `insert into tessera_identity.recovery_codes
         (id, user_id, generation, public_selector, secret_digest_algorithm, secret_digest_encoded,
          secret_digest_key_version, state, created_at, updated_at, version)
       values (gen_random_uuid(), ?, 0, ?, 'hmac-sha256', ?, ?, 'active', now(), now(), 0)`,
      [
        owner.session.userId,
        selector,
        keyedDigest(pepper.key, 'tessera-recovery-code-v1', selector, secret),
        pepper.version,
      ],
    );
    const wrong = await use(`${selector}.${randomBytes(16).toString('base64url')}`);
    expect([wrong.status, errorCode(wrong)]).toEqual([401, 'invalid_credentials']);
    const used = await use(`${selector}.${secret.toString('base64url')}`);
    expect(used.status).toBe(200);
    expect(used.body.userId).toBe(owner.session.userId);
    const [stored] = await rowsOf(identity).sql(
      'select state from tessera_identity.recovery_codes where public_selector = ?',
      [selector],
    );
    expect(stored).toMatchObject({ state: 'consumed' });
  });

  it('finds a code made under a previous recovery pepper version after the pepper rotates', async () => {
    const owner = await passkeyOwner(identity);
    const rotated = await bootIdentityHostApp({
      instanceOf: identity,
      extraSecrets: { 'env:TESSERA_TEST_RECOVERY_PEPPER_NEXT@v2': randomBytes(24).toString('base64url') },
      overrides: {
        secrets: {
          sessionPepper: { current: 'env:TESSERA_TEST_SESSION_PEPPER' },
          devicePepper: { current: 'env:TESSERA_TEST_DEVICE_PEPPER' },
          servicePepper: { current: 'env:TESSERA_TEST_SERVICE_PEPPER' },
          auditKey: 'env:TESSERA_TEST_AUDIT_KEY',
          encryptionKey: 'env:TESSERA_TEST_ENCRYPTION_KEY',
          signingKey: 'env:TESSERA_TEST_SIGNING_KEY',
          recoveryPepper: {
            current: 'env:TESSERA_TEST_RECOVERY_PEPPER_NEXT@v2',
            previous: ['env:TESSERA_TEST_RECOVERY_PEPPER'],
          },
        },
      },
    });
    try {
      expect(identityKernelOf(rotated.app).keys.recoveryPepper.current.version).toBe('v2');
      const used = await post(rotated, USE).send({ code: owner.codes[2]! });
      expect(used.status).toBe(200);
      expect(await row(owner.codes[2]!)).toMatchObject({ state: 'consumed', version: 1 });
      const unknown = await post(rotated, USE).send({ code: wrongRecoveryCode(owner.codes[3]!) });
      expect([unknown.status, errorCode(unknown)]).toEqual([401, 'invalid_credentials']);
    } finally {
      await rotated.close();
    }
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
      const res = await post(identity, USE).send({ code: wrongRecoveryCode(code) });
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
    expect(await recoveryCodeRow(identity, code)).toMatchObject({ state: 'active', version: 0 });
    expect(await rowsOf(identity).count('sessions', "authentication_method = 'recovery_code'")).toBe(0);

    identity.clock.advance({ seconds: windowSeconds });
    expect((await post(identity, USE).send({ code })).status).toBe(200);
  });
});
