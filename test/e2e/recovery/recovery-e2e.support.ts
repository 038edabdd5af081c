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

/** A recovery code as shown to the user (identity-model §2). */
export const RECOVERY_CODE = /^[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{22}$/;

/** The user's recovery-code rows (no secrets are stored), by generation then selector. */
export function recoveryCodeRows(identity: IdentityTestApp, userId: string): Promise<TestRow[]> {
  return rowsOf(identity).sql(
    `select generation, public_selector, secret_digest_algorithm, secret_digest_encoded, secret_digest_key_version,
            state, consumed_at, version
       from tessera_identity.recovery_codes where user_id = ? order by generation, public_selector`,
    [userId],
  );
}
