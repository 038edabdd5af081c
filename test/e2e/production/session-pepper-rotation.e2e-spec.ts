import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { TestDatabase } from '@tessera/database';
import type { SoftwareAuthenticator } from '@tessera/identity-testing';
import type { TestSession } from '../../support/passkey-client.js';
import {
  bootDemo,
  bootstrapOwner,
  configureBlock,
  LOOPBACK_PROXY_CIDRS,
  ProxyClient,
  provisionedProductionDatabase,
  runbookSteps,
  runShell,
  signIn,
  sql,
} from './production.support.js';

/**
 * Issue 12 item 5: the session-pepper rotation runbook of docs/deployment.md, followed step by step
 * as written (each `sh` block runs in a shell on the deployment's environment, each `restart` step
 * restarts the app, the `query` step runs its SQL), over HTTP against PostgreSQL.
 */
describe('session pepper rotation, as docs/deployment.md describes it', () => {
  const steps = runbookSteps('session-pepper');
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let app: INestApplication | undefined;
  let authenticator: SoftwareAuthenticator;
  let onV1: TestSession;
  let onV2: TestSession;

  const restart = async (next: NodeJS.ProcessEnv) => {
    await app?.close();
    app = undefined;
    env = next;
    app = await bootDemo(env);
    return new ProxyClient(app);
  };
  const keyVersion = async (session: TestSession) =>
    (
      await sql<{ version: string }>(
        database.url,
        'select token_digest_key_version as version from tessera_identity.sessions where id = ?',
        [session.sessionId],
      )
    )[0]?.version;
  const me = (session: TestSession) => new ProxyClient(app!).get('/identity/v1/me', session);
  const step = (n: number) => {
    const found = steps.find((s) => s.step === n);
    if (found === undefined) throw new Error(`docs/deployment.md has no session-pepper step ${n}`);
    return found;
  };

  beforeAll(async () => {
    database = await provisionedProductionDatabase();
    const configured = runShell({}, configureBlock());
    const client = await restart({
      ...configured,
      DATABASE_URL: database.url,
      TESSERA_TRUSTED_PROXY_CIDRS: LOOPBACK_PROXY_CIDRS,
    });
    ({ authenticator } = await bootstrapOwner(client, env.TESSERA_PRODUCTION_BOOTSTRAP_SECRET!));
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('documents three steps: rotate and restart, check, retire and restart', () => {
    expect(steps.map(({ step, action }) => [step, action])).toEqual([
      [1, 'restart'],
      [2, 'query'],
      [3, 'restart'],
    ]);
  });

  it('starts with a session minted on pepper v1', async () => {
    onV1 = await signIn(new ProxyClient(app!), authenticator);
    expect(await keyVersion(onV1)).toBe('v1');
    expect((await me(onV1)).status).toBe(200);
  });

  it('step 1: after adding v2 as current and restarting, the v1 session still resolves and new sessions are on v2', async () => {
    const client = await restart(runShell(env, step(1).code));
    expect(env.TESSERA_SESSION_PEPPER_REF).toBe('env:TESSERA_PRODUCTION_SESSION_PEPPER@v2');
    expect(env.TESSERA_PRODUCTION_SESSION_PEPPER_V2).toMatch(/^[A-Za-z0-9+/]{43}=$/);

    const before = await me(onV1);
    expect([before.status, before.body.userId]).toEqual([200, onV1.userId]);
    onV2 = await signIn(client, authenticator);
    expect(await keyVersion(onV2)).toBe('v2');
    expect((await me(onV2)).status).toBe(200);
  });

  it('step 2: the documented query counts the sessions still on v1', async () => {
    const rows = await sql<{ sessions: string | number }>(database.url, step(2).code);
    expect(Number(rows[0]!.sessions)).toBe(1);
  });

  it('step 3: after retiring v1 and restarting, the v1 session answers 401 and the v2 session still works', async () => {
    await restart(runShell(env, step(3).code));
    expect(env.TESSERA_SESSION_PEPPER_PREVIOUS_REFS).toBeUndefined();
    expect(env.TESSERA_PRODUCTION_SESSION_PEPPER).toBeUndefined();

    const old = await me(onV1);
    expect(old.status).toBe(401);
    const current = await me(onV2);
    expect([current.status, current.body.userId]).toEqual([200, onV2.userId]);
    // A fresh sign-in is on v2 too.
    expect(await keyVersion(await signIn(new ProxyClient(app!), authenticator))).toBe('v2');
  });
});
