import { createHmac } from 'node:crypto';
import request from 'supertest';
import type { Response } from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import { IdentityTestRows, type TestRow } from '@tessera/identity-testing';
import { TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import type { TestSession } from '../../support/passkey-client.js';
import { identityKernelOf, type IdentityKernel } from '../../support/identity-kernel.js';

/** Raw SQL on the app's database (`?` placeholders). */
export function rowsOf(identity: IdentityTestApp): IdentityTestRows {
  return new IdentityTestRows(identity.app.get(MikroORM).em);
}

/** The running identity kernel (store, keys, config). */
export function kernelOf(identity: IdentityTestApp): IdentityKernel {
  return identityKernelOf(identity.app);
}

/** The audit rows of `action`, oldest first, with the columns the tests compare. */
export async function auditsOf(identity: IdentityTestApp, action: string): Promise<TestRow[]> {
  return rowsOf(identity).sql(
    `select actor_type, actor_user_id, action, target_type, target_id, outcome, reason_code
       from tessera_identity.audit_events where action = ? order by occurred_at, id`,
    [action],
  );
}

/** A safe (GET) request carrying the session cookie. */
export function read(identity: IdentityTestApp, path: string, session?: TestSession) {
  const req = request(identity.app.getHttpServer()).get(path);
  return session ? req.set('cookie', session.cookie) : req;
}

/** An unsafe request with the session cookie, the exact `Origin` and the session's CSRF token. */
export function unsafe(
  identity: IdentityTestApp,
  method: 'post' | 'patch' | 'delete',
  path: string,
  session?: TestSession,
) {
  let req = request(identity.app.getHttpServer())[method](path).set('origin', TEST_ORIGIN);
  if (session) req = req.set('cookie', session.cookie).set('x-csrf-token', session.csrfToken);
  return req;
}

/** The error code of an identity envelope. */
export function errorCode(res: Response): string | undefined {
  return (res.body as { error?: { code?: string } }).error?.code;
}

/** `iso` plus `minutes` as the contract's timestamp (no millisecond fraction when zero). */
export function plusMinutes(iso: string | Date, minutes: number): string {
  const at = new Date(new Date(iso).getTime() + minutes * 60_000);
  return at.toISOString().replace('.000Z', 'Z');
}

/** The `SessionCreated` keys (identity-http §4.5). */
export const SESSION_CREATED_KEYS = [
  'absoluteExpiresAt',
  'assurance',
  'authenticatedAt',
  'csrfToken',
  'idleExpiresAt',
  'sessionId',
  'userId',
];

/**
 * The length-prefixed HMAC-SHA-256 of identity-model §2 (base64url), written out independently of
 * the library so that tests check stored digests against the contract, not against themselves.
 */
export function keyedDigest(key: Uint8Array, ...fields: (string | Buffer)[]): string {
  const parts = fields.flatMap((field) => {
    const bytes = typeof field === 'string' ? Buffer.from(field, 'utf8') : field;
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.byteLength);
    return [length, bytes];
  });
  return createHmac('sha256', key).update(Buffer.concat(parts)).digest('base64url');
}

/** A recovery code as shown to the user (identity-model §2, issue 17): 26 Crockford base32 characters, 5-5-5-5-6. */
export const RECOVERY_CODE =
  /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{6}$/;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The 16 secret bytes a shown code spells (written out independently of the library). */
export function recoverySecretOf(code: string): Buffer {
  const bits = [...code.replaceAll('-', '')].map((c) => CROCKFORD.indexOf(c).toString(2).padStart(5, '0')).join('');
  return Buffer.from(Array.from({ length: 16 }, (_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2)));
}

/** The stored digest of a shown code under the current recovery pepper: HMAC(`tessera-recovery-code-v2` ‖ secret). */
export function recoveryCodeDigest(identity: IdentityTestApp, code: string): string {
  return keyedDigest(
    kernelOf(identity).keys.recoveryPepper.current.key,
    'tessera-recovery-code-v2',
    recoverySecretOf(code),
  );
}

/** The stored row of a shown code, found by its digest. */
export async function recoveryCodeRow(identity: IdentityTestApp, code: string): Promise<TestRow | undefined> {
  return (
    await rowsOf(identity).sql(
      'select state, version, consumed_at, public_selector from tessera_identity.recovery_codes where secret_digest_encoded = ?',
      [recoveryCodeDigest(identity, code)],
    )
  )[0];
}

/** Another code of the same shape: one character of `code` changed. */
export function wrongRecoveryCode(code: string, at = 7): string {
  const next = CROCKFORD[(CROCKFORD.indexOf(code[at]!) + 1) % 32]!;
  return `${code.slice(0, at)}${next}${code.slice(at + 1)}`;
}

/** The user's recovery-code rows (no secrets are stored), by generation then digest. */
export function recoveryCodeRows(identity: IdentityTestApp, userId: string): Promise<TestRow[]> {
  return rowsOf(identity).sql(
    `select generation, public_selector, secret_digest_algorithm, secret_digest_encoded, secret_digest_key_version,
            state, consumed_at, version
       from tessera_identity.recovery_codes where user_id = ? order by generation, secret_digest_encoded`,
    [userId],
  );
}
