import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MikroORM } from '@mikro-orm/core';
import request from 'supertest';
import { bootIdentityApp, seedPasskeySession, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';

/**
 * Issue 11, item 2: statements selected `*` / returned `*` and stayed prepared for the life of
 * their connection, so a migration adding a column made every running instance answer 503
 * (`0A000 cached plan must not change result type`) until its connections recycled.
 */
describe('a running identity app while a migration adds columns to its hot tables', () => {
  let identity: IdentityTestApp;
  let session: Awaited<ReturnType<typeof seedPasskeySession>>;

  beforeAll(async () => {
    identity = await bootIdentityApp();
    session = await seedPasskeySession(identity);
  }, 120_000);

  afterAll(async () => {
    await identity?.close();
  });

  const get = (path: string) => request(identity.app.getHttpServer()).get(path).set('cookie', session.cookie);
  const reads = async () => ({
    me: (await get('/identity/v1/me')).status,
    sessions: (await get('/identity/v1/sessions')).status,
    passkeys: (await get('/identity/v1/passkeys')).status,
    organizations: (await get('/identity/v1/organizations')).status,
  });
  const ok = { me: 200, sessions: 200, passkeys: 200, organizations: 200 };

  it('keeps answering the next requests after the columns appear (was 503 until the connections recycled)', async () => {
    // Twice, so every statement is prepared on the pooled connections before the migration.
    expect(await reads()).toEqual(ok);
    expect(await reads()).toEqual(ok);
    const connection = identity.app.get(MikroORM).em.getConnection();
    for (const table of ['sessions', 'users', 'credentials', 'memberships', 'organizations', 'challenges']) {
      await connection.execute(`alter table tessera_identity.${table} add column rollout_marker text`);
    }
    expect(await reads()).toEqual(ok);
    const start = await request(identity.app.getHttpServer())
      .post('/identity/v1/passkeys/authentication/start')
      .set('origin', TEST_ORIGIN);
    expect(start.status).toBe(200);
    const logout = await request(identity.app.getHttpServer())
      .post('/identity/v1/logout')
      .set('origin', TEST_ORIGIN)
      .set('cookie', session.cookie)
      .set('x-csrf-token', session.csrfToken);
    expect(logout.status).toBe(200);
    expect((await get('/identity/v1/me')).status).toBe(401);
  });
});
