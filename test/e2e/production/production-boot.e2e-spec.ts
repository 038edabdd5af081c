import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { TestDatabase } from '@tessera/database';
import { IDENTITY_ENV_VARIABLES, IdentityConfigEnvError } from '@tessera/identity';
import { AppModule } from '../../../apps/demo/src/app.module.js';
import { readStartupFacts, startupHints } from '../../../apps/demo/src/startup/startup-hints.js';
import {
  bootDemo,
  bootstrapOwner,
  configureBlock,
  documentedVariableRows,
  LOOPBACK_PROXY_CIDRS,
  PUBLIC_ORIGIN,
  ProxyClient,
  provisionedProductionDatabase,
  runShell,
  signIn,
} from './production.support.js';

/**
 * Issue 12 item 5: the demo in production mode, configured from environment variables only (the
 * configure block of docs/deployment.md), on a freshly provisioned PostgreSQL database, reached
 * through a TLS-terminating proxy at https://id.example.com.
 */
describe('the demo in production behind a TLS-terminating proxy', () => {
  let database: TestDatabase;
  let secretsDir: string;
  let env: NodeJS.ProcessEnv;
  let app: INestApplication;

  beforeAll(async () => {
    database = await provisionedProductionDatabase();
    // One key from a file, as Docker/Kubernetes secrets are mounted.
    secretsDir = mkdtempSync(join(tmpdir(), 'tessera-secrets-'));
    const signingKeyFile = join(secretsDir, 'tessera_production_signing_key');
    writeFileSync(signingKeyFile, 'file-held-signing-key-of-the-production-deployment\n', { mode: 0o600 });
    env = runShell({}, configureBlock());
    Object.assign(env, {
      DATABASE_URL: database.url,
      TESSERA_TRUSTED_PROXY_CIDRS: LOOPBACK_PROXY_CIDRS,
      TESSERA_SIGNING_KEY_REF: `file:${signingKeyFile}`,
    });
    delete env.TESSERA_PRODUCTION_SIGNING_KEY;
    app = await bootDemo(env);
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    if (secretsDir !== undefined) rmSync(secretsDir, { recursive: true, force: true });
  });

  it('documents every variable identityConfigFromEnv reads in the table of docs/deployment.md', () => {
    const rows = documentedVariableRows();
    for (const variable of IDENTITY_ENV_VARIABLES) {
      expect(rows.get(variable.name)).toEqual([
        `\`${variable.name}\``,
        variable.required ? 'required' : 'optional',
        `\`${variable.option}\``,
        variable.description,
        `\`${variable.example}\``,
      ]);
    }
  });

  it('refuses identity requests that reach the app directly instead of through the proxy', async () => {
    const res = await request(app.getHttpServer()).get('/identity/v1/client-config');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('request_invalid');
  });

  it('serves the client configuration for the public origin, with bootstrap available on the empty database', async () => {
    const res = await new ProxyClient(app).get('/identity/v1/client-config');
    expect(res.status).toBe(200);
    expect(res.body.rpId).toBe('example.com');
    expect(res.body.device.verificationUri).toBe(`${PUBLIC_ORIGIN}/device`);
    expect(res.body.features.bootstrap).toBe(true);
  });

  it('points the first start at /identity/bootstrap, and at /identity once the owner exists', async () => {
    const known = { listenUrl: 'http://localhost:3000', database: 'PostgreSQL', deployed: true, metricsKeySet: false };
    const before = startupHints(await readStartupFacts(app, known));
    expect(before).toContain(
      `First step: open ${PUBLIC_ORIGIN}/identity/bootstrap to create the first owner with the bootstrap secret`,
    );

    const client = new ProxyClient(app);
    const { authenticator } = await bootstrapOwner(client, env.TESSERA_PRODUCTION_BOOTSTRAP_SECRET!);
    const after = startupHints(await readStartupFacts(app, known));
    expect(after).toContain(`First step: sign in at ${PUBLIC_ORIGIN}/identity`);
    expect(after).toContain('Bootstrap is complete: unset TESSERA_BOOTSTRAP_SECRET_REF and restart to retire it');

    // Signed in through the proxy, with either forwarding header family.
    for (const headers of ['x-forwarded', 'forwarded'] as const) {
      const proxied = new ProxyClient(app, headers);
      const session = await signIn(proxied, authenticator);
      const me = await proxied.get('/identity/v1/me', session);
      expect([me.status, me.body.userId]).toEqual([200, session.userId]);
      const account = await proxied.get('/account', session);
      expect([account.status, account.body.userId]).toEqual([200, session.userId]);
    }
    expect((await client.get('/identity/v1/me')).status).toBe(401);
    expect((await new ProxyClient(app).get('/identity/v1/client-config')).body.features.bootstrap).toBe(false);
  });

  it('serves no development outbox: the page exists in development only', async () => {
    const res = await new ProxyClient(app).get('/identity/dev/outbox');
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('invited you');
  });

  it('issues the session cookie as __Host- and Secure, as the https origin requires', async () => {
    const res = await new ProxyClient(app).post('/identity/v1/bootstrap').send({
      secret: env.TESSERA_PRODUCTION_BOOTSTRAP_SECRET,
      displayName: 'Second Owner',
      primaryEmail: 'second@example.com',
      organizationName: 'Second',
      organizationSlug: 'second',
    });
    // Bootstrap happened once (previous test); the proxy path still answers with the identity envelope.
    expect(res.status).toBe(409);
    const signInStart = await new ProxyClient(app).post('/identity/v1/passkeys/authentication/start');
    const cookie = ((signInStart.headers['set-cookie'] as unknown as string[]) ?? []).join('\n');
    expect(cookie).toMatch(/__Host-tessera_ceremony=[^;]+;.*Secure/i);
  });

  it('serves the landing page and the demo routes in production too', async () => {
    const client = new ProxyClient(app);
    expect((await client.get('/')).status).toBe(200);
    expect((await client.get('/health')).body).toEqual({ status: 'ok', database: 'up' });
  });
});

describe('production mode trusts forwarding headers only from TESSERA_TRUSTED_PROXY_CIDRS', () => {
  let database: TestDatabase;
  let app: INestApplication;

  beforeAll(async () => {
    database = await provisionedProductionDatabase();
    const env = runShell({}, configureBlock());
    // The documented proxy subnet (10.0.0.0/8) does not contain the test's loopback peer.
    app = await bootDemo({ ...env, DATABASE_URL: database.url });
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('ignores X-Forwarded-* and Forwarded from an untrusted peer (400 request_invalid)', async () => {
    for (const headers of ['x-forwarded', 'forwarded'] as const) {
      const res = await new ProxyClient(app, headers).get('/identity/v1/client-config');
      expect([res.status, res.body.error?.code]).toEqual([400, 'request_invalid']);
    }
  });
});

describe('production mode refuses to boot without its configuration', () => {
  const env = runShell({}, configureBlock());

  it.each([
    ['TESSERA_PUBLIC_BASE_URL', 'TESSERA_PUBLIC_BASE_URL'],
    ['TESSERA_RP_ID', 'TESSERA_RP_ID'],
    ['TESSERA_SESSION_PEPPER_REF', 'TESSERA_SESSION_PEPPER_REF'],
    ['TESSERA_PRODUCTION_AUDIT_KEY', 'TESSERA_PRODUCTION_AUDIT_KEY'],
    ['DATABASE_URL', 'DATABASE_URL'],
  ])('names %s when it is missing, before opening anything', (removed, named) => {
    const incomplete = { ...env };
    delete incomplete[removed];
    let error: unknown;
    try {
      AppModule.forRoot({ env: incomplete });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(IdentityConfigEnvError);
    expect((error as IdentityConfigEnvError).variable).toBe(named);
    expect((error as Error).message).toContain(`${named}: is not set`);
    // Never a secret value in the refusal.
    for (const [name, value] of Object.entries(env))
      if (name.startsWith('TESSERA_PRODUCTION_')) expect((error as Error).message).not.toContain(value);
  });
});
