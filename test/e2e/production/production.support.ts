import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { knex } from '@mikro-orm/postgresql';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import { AppModule } from '../../../apps/demo/src/app.module.js';
import { demoEntities, demoMigrations } from '../../../apps/demo/src/database.js';
import { provisionIdentityDatabase } from '../../../apps/demo/src/identity/demo-identity.provision.js';
import { ceremonyCookieOf, sessionOf, type TestSession } from '../../support/passkey-client.js';

/** The public origin of the deployment in docs/deployment.md's configure block. */
export const PUBLIC_ORIGIN = 'https://id.example.com';
/** The proxies as the test reaches the app: supertest connects from loopback. */
export const LOOPBACK_PROXY_CIDRS = '127.0.0.1/32,::1/128';
/** The end user's address, as the proxy reports it. */
const CLIENT_ADDRESS = '203.0.113.7';

const DEPLOYMENT_DOC = readFileSync(join(process.cwd(), 'docs', 'deployment.md'), 'utf8');

/** The `sh` block after `<!-- runbook configure -->` in docs/deployment.md. */
export function configureBlock(): string {
  const match = /<!-- runbook configure -->\n+```sh\n([\s\S]*?)\n```/.exec(DEPLOYMENT_DOC);
  if (match === null) throw new Error('docs/deployment.md has no "runbook configure" block');
  return match[1]!;
}

/** One machine-readable step of a runbook in docs/deployment.md. */
export interface RunbookStep {
  readonly step: number;
  /** `restart`: apply the `sh` block, then restart; `query`: run the `sql` block. */
  readonly action: 'restart' | 'query';
  readonly code: string;
}

/** The steps of runbook `name` (`<!-- runbook <name> step <n>: <action> -->` + a fenced block), in order. */
export function runbookSteps(name: string): RunbookStep[] {
  const pattern = new RegExp(
    `<!-- runbook ${name} step (\\d+): (restart|query) -->\\n+\`\`\`(?:sh|sql)\\n([\\s\\S]*?)\\n\`\`\``,
    'g',
  );
  return [...DEPLOYMENT_DOC.matchAll(pattern)].map((match) => ({
    step: Number(match[1]),
    action: match[2] as RunbookStep['action'],
    code: match[3]!,
  }));
}

/** The table rows of docs/deployment.md whose first cell is a variable name, as trimmed cells. */
export function documentedVariableRows(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of DEPLOYMENT_DOC.split('\n')) {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const name = /^`([A-Z_]+)`$/.exec(cells[0] ?? '')?.[1];
    if (name !== undefined && cells.length === 5) rows.set(name, cells);
  }
  return rows;
}

const SHELL_OWN = new Set(['PATH', 'PWD', 'OLDPWD', 'SHLVL', '_']);

/**
 * Runs a documented shell block as an operator would (`sh -e`, `openssl` and all) on top of
 * `env`, and returns the environment it leaves behind.
 */
export function runShell(env: NodeJS.ProcessEnv, script: string): NodeJS.ProcessEnv {
  const output = execFileSync('sh', ['-ec', `${script}\nenv -0`], {
    env: { ...env, PATH: process.env.PATH },
    encoding: 'utf8',
  });
  const result: NodeJS.ProcessEnv = {};
  for (const entry of output.split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0 && !SHELL_OWN.has(entry.slice(0, at))) result[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return result;
}

/** The PostgreSQL server the production tests create their databases on. */
export function postgresServerUrl(): string {
  return process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

/**
 * A fresh database on the PostgreSQL server (dropped by `close()`), migrated and provisioned for
 * production as `npm run provision` does.
 */
export async function provisionedProductionDatabase(): Promise<TestDatabase> {
  let database: TestDatabase;
  try {
    database = await createTestDatabase({ url: postgresServerUrl(), prefix: 'tessera_prod' });
  } catch (error) {
    throw new Error(
      `the production tests need a PostgreSQL server (at ${new URL(postgresServerUrl()).host}; set DATABASE_URL to use another): ${(error as Error).message}`,
      { cause: error },
    );
  }
  try {
    await provisionIdentityDatabase({
      database: { url: database.url, entities: demoEntities, migrations: { list: demoMigrations, silent: true } },
      environment: 'production',
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** The demo app module booted from `env` only, as `npm start` does with `NODE_ENV=production`. */
export async function bootDemo(env: NodeJS.ProcessEnv): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot({ env })] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/** How the TLS-terminating proxy reports the original request. */
export type ProxyHeaders = 'x-forwarded' | 'forwarded';

/**
 * Requests as the proxy forwards them: `X-Forwarded-Proto/-Host/-For` (or RFC 7239 `Forwarded`)
 * for `https://id.example.com`; unsafe ones carry the browser's `Origin` and, with a session, its
 * cookie and CSRF token.
 */
export class ProxyClient {
  constructor(
    private readonly app: INestApplication,
    private readonly headers: ProxyHeaders = 'x-forwarded',
  ) {}

  private forwarded(req: request.Test): request.Test {
    const host = new URL(PUBLIC_ORIGIN).host;
    return this.headers === 'forwarded'
      ? req.set('forwarded', `for=${CLIENT_ADDRESS};proto=https;host=${host}`)
      : req.set('x-forwarded-proto', 'https').set('x-forwarded-host', host).set('x-forwarded-for', CLIENT_ADDRESS);
  }

  get(path: string, session?: TestSession): request.Test {
    const req = this.forwarded(request(this.app.getHttpServer()).get(path));
    return session === undefined ? req : req.set('cookie', session.cookie);
  }

  post(path: string, session?: TestSession, cookies: string[] = []): request.Test {
    let req = this.forwarded(request(this.app.getHttpServer()).post(path)).set('origin', PUBLIC_ORIGIN);
    const all = [...(session === undefined ? [] : [session.cookie]), ...cookies];
    if (all.length > 0) req = req.set('cookie', all.join('; '));
    return session === undefined ? req : req.set('x-csrf-token', session.csrfToken);
  }
}

/**
 * Bootstrap with the configured secret (restricted session), then the owner's passkey: what the
 * first visit to `/identity/bootstrap` does. Returns the bootstrap session and the authenticator.
 */
export async function bootstrapOwner(
  client: ProxyClient,
  bootstrapSecret: string,
): Promise<{ session: TestSession; authenticator: SoftwareAuthenticator }> {
  const boot = await client.post('/identity/v1/bootstrap').send({
    secret: bootstrapSecret,
    displayName: 'Ada Lovelace',
    primaryEmail: 'ada@example.com',
    organizationName: 'Analytical Engines',
    organizationSlug: 'engines',
  });
  expect(boot.status).toBe(201);
  const session = sessionOf(boot);
  const start = await client.post('/identity/v1/passkeys/registration/start', session);
  expect(start.status).toBe(200);
  const authenticator = new SoftwareAuthenticator();
  const credential = authenticator.createCredential(start.body.publicKey, { origin: PUBLIC_ORIGIN });
  const finish = await client
    .post('/identity/v1/passkeys/registration/finish', session, [ceremonyCookieOf(start)])
    .send({ ceremonyId: start.body.ceremonyId, credentialName: 'Laptop', credential });
  expect(finish.status).toBe(200);
  return { session, authenticator };
}

/** A username-free passkey sign-in through the proxy: the new full session. */
export async function signIn(client: ProxyClient, authenticator: SoftwareAuthenticator): Promise<TestSession> {
  const start = await client.post('/identity/v1/passkeys/authentication/start');
  expect(start.status).toBe(200);
  const credential = authenticator.getAssertion(start.body.publicKey, { origin: PUBLIC_ORIGIN });
  const finish = await client
    .post('/identity/v1/passkeys/authentication/finish', undefined, [ceremonyCookieOf(start)])
    .send({ ceremonyId: start.body.ceremonyId, credential });
  expect(finish.status).toBe(200);
  return sessionOf(finish);
}

/** Runs SQL on `url` (one short-lived connection): the rows. */
export async function sql<T>(url: string, query: string, bindings: readonly unknown[] = []): Promise<T[]> {
  const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    const result = (await db.raw(query, bindings as never)) as { rows: T[] };
    return result.rows;
  } finally {
    await db.destroy();
  }
}
