import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import {
  evaluateEnvBlock,
  parseEnvBlock,
  parseInstallCommand,
  readmeApp,
  type ReadmeApp,
} from '../../support/readme-blocks.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const APP_DIR = join(ROOT, '.data', 'readme-app');
const LIBS = ['web', 'viewset', 'core', 'database', 'identity', 'identity-mikro-orm', 'identity-testing'];

/**
 * The README's `tsconfig.json` with the packages mapped to this repository's sources (the external
 * consumer test compiles against the packed packages instead).
 */
function checkConfig(): string {
  const paths = Object.fromEntries(LIBS.map((lib) => [`@tessera/${lib}`, [`../../libs/${lib}/src/index.ts`]]));
  return JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true, rootDir: '../..', paths } });
}

/**
 * The README's "Use it in your app" code, written verbatim into `.data/readme-app` and booted
 * in-process (the external consumer test does the same from packed tarballs, outside the repository).
 */
describe('README "Use it in your app"', () => {
  let readme: ReadmeApp;
  let env: Record<string, string>;
  let database: TestDatabase;
  let app: INestApplication;
  const saved = { ...process.env };

  beforeAll(async () => {
    readme = readmeApp(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    rmSync(APP_DIR, { recursive: true, force: true });
    for (const { file, code } of readme.files) {
      mkdirSync(dirname(join(APP_DIR, file)), { recursive: true });
      writeFileSync(join(APP_DIR, file), code);
    }
    writeFileSync(join(APP_DIR, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(join(APP_DIR, 'tsconfig.check.json'), checkConfig());
    env = await evaluateEnvBlock(readme.env);
    database = await createTestDatabase();
    // The variables of the env block, and nothing the suite happens to have set that the README does not name.
    for (const name of Object.keys(process.env)) if (name.startsWith('TESSERA_')) delete process.env[name];
    Object.assign(process.env, env, { DATABASE_URL: database.url });
    const { AppModule } = (await import(join(APP_DIR, 'src', 'app.module.ts'))) as { AppModule: Type<unknown> };
    app = await NestFactory.create(AppModule, { logger: false });
    await app.init();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await database?.close();
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it('lists the packages to install and the variables to set', () => {
    const { dependencies, devDependencies } = parseInstallCommand(readme.install);
    for (const name of ['@tessera/web', '@tessera/viewset', '@tessera/database', '@tessera/identity']) {
      expect(dependencies).toContain(name);
    }
    for (const name of ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', '@nestjs/config']) {
      expect(dependencies).toContain(name);
    }
    for (const name of ['@mikro-orm/core', '@mikro-orm/postgresql', '@mikro-orm/migrations', 'reflect-metadata']) {
      expect(dependencies).toContain(name);
    }
    expect(devDependencies).toEqual(expect.arrayContaining(['typescript', '@types/node']));
    // Every package the app's code imports is installed.
    const imported = new Set(
      readme.files.flatMap(({ code }) =>
        [...code.matchAll(/from '((?:@[^/']+\/)?[^./'][^/']*)/g)].map((match) => match[1]!),
      ),
    );
    for (const name of imported) if (!name.startsWith('node:')) expect(dependencies).toContain(name);
    expect(parseEnvBlock(readme.env).map((v) => v.name)).toEqual(Object.keys(env));
    for (const [name, value] of Object.entries(env)) {
      if (name.startsWith('TESSERA_')) expect(Buffer.byteLength(value)).toBeGreaterThanOrEqual(32);
    }
  });

  it('compiles with the README tsconfig (strict, NodeNext, decorators with metadata)', async () => {
    expect(readme.files.map((f) => f.file)).toEqual(
      expect.arrayContaining(['tsconfig.json', 'src/main.ts', 'src/app.module.ts']),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', join(APP_DIR, 'tsconfig.check.json')]).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe('');
  }, 180_000);

  it('serves the radix route', async () => {
    const res = await request(app.getHttpServer()).get('/hello/ada%20lovelace');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ hello: 'ada lovelace' });
  });

  it('serves the ViewSet, persisted by its migration', async () => {
    const http = request(app.getHttpServer());
    const created = await http.post('/todos').send({ title: 'milk' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), title: 'milk' });
    expect(created.headers['location']).toBe(`/todos/${created.body.id}`);
    expect((await http.get(`/todos/${created.body.id}`)).body).toEqual(created.body);
    expect((await http.get('/todos')).body).toEqual([created.body]);
    expect((await http.get('/todos/not-an-id')).status).toBe(404);
    const invalid = await http.post('/todos').send({ title: '' });
    expect(invalid.status).toBe(400);
  });

  it('guards the controller: 401 without a session, bootstrap → 201, the restricted session, then a passkey session', async () => {
    const http = () => request(app.getHttpServer());
    const origin = `http://localhost:${env['PORT']}`;
    const anonymous = await http().get('/account');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('authentication_required');
    expect((await http().get('/account/setup')).status).toBe(401);

    const boot = await http().post('/identity/v1/bootstrap').send({
      secret: env['TESSERA_DEVELOPMENT_BOOTSTRAP_SECRET'],
      displayName: 'Ada Lovelace',
      primaryEmail: 'ada@example.com',
      organizationName: 'Analytical Engines',
      organizationSlug: 'engines',
    });
    expect(boot.status).toBe(201);
    expect(boot.text).not.toContain(env['TESSERA_DEVELOPMENT_BOOTSTRAP_SECRET']);
    const restricted = { cookie: sessionCookie(boot.headers), csrf: boot.body.csrfToken as string };
    const setup = await http().get('/account/setup').set('cookie', restricted.cookie);
    expect(setup.status).toBe(200);
    expect(setup.body).toEqual({ userId: boot.body.userId, next: 'POST /identity/v1/passkeys/registration/start' });
    expect((await http().get('/account').set('cookie', restricted.cookie)).status).toBe(401);

    // The first owner registers a passkey with the restricted session, then signs in with it.
    const authenticator = new SoftwareAuthenticator();
    const start = await http()
      .post('/identity/v1/passkeys/registration/start')
      .set({ origin, cookie: restricted.cookie, 'x-csrf-token': restricted.csrf });
    expect(start.status).toBe(200);
    const finish = await http()
      .post('/identity/v1/passkeys/registration/finish')
      .set({
        origin,
        cookie: `${restricted.cookie}; ${ceremonyCookie(start.headers)}`,
        'x-csrf-token': restricted.csrf,
      })
      .send({
        ceremonyId: start.body.ceremonyId,
        credentialName: 'Laptop',
        credential: authenticator.createCredential(start.body.publicKey, { origin }),
      });
    expect(finish.status).toBe(200);
    const signInStart = await http().post('/identity/v1/passkeys/authentication/start').set({ origin });
    expect(signInStart.status).toBe(200);
    const signIn = await http()
      .post('/identity/v1/passkeys/authentication/finish')
      .set({ origin, cookie: ceremonyCookie(signInStart.headers) })
      .send({
        ceremonyId: signInStart.body.ceremonyId,
        credential: authenticator.getAssertion(signInStart.body.publicKey, { origin }),
      });
    expect(signIn.status).toBe(200);
    const account = await http().get('/account').set('cookie', sessionCookie(signIn.headers));
    expect(account.status).toBe(200);
    expect(account.body).toEqual({ userId: boot.body.userId, assurance: 'passkey' });
  });
});

function cookieNamed(headers: Record<string, unknown>, name: string): string {
  const cookies = (headers['set-cookie'] as string[] | undefined) ?? [];
  const cookie = cookies.find((c) => c.startsWith(`${name}=`) && !c.startsWith(`${name}=;`));
  if (cookie === undefined) throw new Error(`no ${name} cookie in ${JSON.stringify(cookies)}`);
  return cookie.split(';')[0]!;
}

const sessionCookie = (headers: Record<string, unknown>) => cookieNamed(headers, '__Host-tessera_session');
const ceremonyCookie = (headers: Record<string, unknown>) => cookieNamed(headers, '__Host-tessera_ceremony');
