import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { AppModule } from '../../../apps/demo/src/app.module.js';

const VIEWER = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

describe('demo API reference at /identity/docs', () => {
  let database: TestDatabase;
  let app: INestApplication;

  beforeAll(async () => {
    database = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.forRoot({ databaseUrl: database.url, env: {} })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('serves the page with same-origin scripts only, pointing the viewer at the live document', async () => {
    const page = await request(app.getHttpServer()).get('/identity/docs').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*(unsafe|https?:)/);
    expect(page.text).not.toMatch(/<script>|https?:\/\/(?!www\.w3\.org)/);
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url!);
    expect(sources).toEqual(
      expect.arrayContaining([
        '/assets/api-docs/swagger-ui.css',
        '/assets/api-docs/swagger-ui-bundle.js',
        '/assets/api-docs/api-docs.js',
      ]),
    );
    const init = await request(app.getHttpServer()).get('/assets/api-docs/api-docs.js').expect(200);
    expect(init.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(init.text).toContain('"/identity/v1/openapi.json"');
    const document = await request(app.getHttpServer()).get('/identity/v1/openapi.json').expect(200);
    expect(document.body.openapi).toBe('3.1.0');
  });

  it('serves Swagger UI from the installed swagger-ui-dist package (no CDN)', async () => {
    for (const [file, type] of [
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['swagger-ui.css', 'text/css; charset=utf-8'],
    ] as const) {
      const asset = await request(app.getHttpServer())
        .get(`/assets/api-docs/${file}`)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        })
        .expect(200);
      expect(asset.headers['content-type']).toBe(type);
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
      expect(Buffer.compare(asset.body as Buffer, readFileSync(join(VIEWER, file)))).toBe(0);
    }
    await request(app.getHttpServer()).get('/assets/api-docs/index.html').expect(404);
  });
});
