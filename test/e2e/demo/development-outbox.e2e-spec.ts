import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { AppModule } from '../../../apps/demo/src/app.module.js';
import { PAGE_HEADERS } from '../../../apps/demo/src/pages/page-headers.js';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { passkeyOwner, post, type TestSession } from '../../support/passkey-client.js';

const BOOTSTRAP_SECRET = 'demo-bootstrap-secret-for-tests';
const OUTBOX = '/identity/dev/outbox';

/** The demo in development, its development secrets (and so its outbox) in `dir`. */
async function bootDevelopmentDemo(databaseUrl: string, dir: string): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      AppModule.forRoot({
        databaseUrl,
        env: { TESSERA_BOOTSTRAP_SECRET: BOOTSTRAP_SECRET },
        secretsFile: join(dir, 'identity-development-secrets.json'),
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('the demo delivers invitations to a development outbox (issue 17)', () => {
  let database: TestDatabase;
  let dir: string;
  let app: INestApplication;
  let owner: TestSession;
  let organizationId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'tessera-outbox-'));
    app = await bootDevelopmentDemo(database.url, dir);
    owner = (await passkeyOwner({ app, bootstrapSecret: BOOTSTRAP_SECRET } as unknown as IdentityTestApp)).session;
    organizationId = (await request(app.getHttpServer()).get('/identity/v1/organizations').set('cookie', owner.cookie))
      .body[0].id;
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers route 31 without the token and lists the message, names and enrolment link on the outbox page', async () => {
    const empty = await request(app.getHttpServer()).get(OUTBOX);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('Nothing was sent yet');

    const created = await post(
      { app } as unknown as IdentityTestApp,
      `/identity/v1/organizations/${organizationId}/invitations`,
      owner,
    ).send({ email: 'grace@example.com', role: 'publisher' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ delivered: true });
    expect(created.body).not.toHaveProperty('token');

    const page = await request(app.getHttpServer()).get(OUTBOX);
    expect(page.status).toBe(200);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(page.headers[name]).toBe(value);
    expect(page.text).not.toMatch(/<script(?! type="module" src=)|<style|\son[a-z]+=/i);
    expect(page.text).toContain('invited you to');
    expect(page.text).toContain(' as publisher');
    expect(page.text).toContain('grace@example.com');
    const link = /href="(http:\/\/localhost:3000\/identity\/enroll#token=[A-Za-z0-9_-]{43})"/.exec(page.text)?.[1];
    expect(link).toBeDefined();
    const token = link!.split('#token=')[1]!;
    const preview = await post({ app } as unknown as IdentityTestApp, '/identity/v1/invitations/preview').send({
      token,
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ role: 'publisher' });

    // Kept next to the development secrets, owner-only, so a restart or `npm run invite` shares it.
    const file = join(dir, 'development-outbox.ndjson');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await app.close();
    app = await bootDevelopmentDemo(database.url, dir);
    expect((await request(app.getHttpServer()).get(OUTBOX)).text).toContain(link!);
  });

  it('escapes what the inviter typed', async () => {
    const created = await post(
      { app } as unknown as IdentityTestApp,
      `/identity/v1/organizations/${organizationId}/invitations`,
      owner,
    ).send({ email: '"><img src=x>@example.com', role: 'viewer' });
    expect(created.status).toBe(201);
    const page = await request(app.getHttpServer()).get(OUTBOX);
    expect(page.text).not.toContain('<img src=x>');
    expect(page.text).toContain('&quot;&gt;&lt;img src=x&gt;@example.com');
  });
});
