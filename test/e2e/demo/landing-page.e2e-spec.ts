import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { AppModule } from '../../../apps/demo/src/app.module.js';
import { PAGE_HEADERS } from '../../../apps/demo/src/pages/page-headers.js';
import { LANDING_SECTIONS } from '../../../apps/demo/src/pages/templates/landing-page.template.js';

describe('demo landing page over HTTP', () => {
  let database: TestDatabase;
  let app: INestApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    database = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.forRoot({ databaseUrl: database.url, env: {} })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('serves GET / as HTML with the headers of every demo page (CSP without inline code, no-store, no referrer)', async () => {
    const res = await http.get('/');
    expect(res.status).toBe(200);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(res.headers[name]).toBe(value);
    expect(res.text).toMatch(/^<!doctype html>/);
    expect(res.text).not.toMatch(/<script|<style|\son[a-z]+=/i);
  });

  it('links the identity pages, the demo APIs and the API docs at /identity/docs', async () => {
    const res = await http.get('/');
    const hrefs = [...res.text.matchAll(/href="([^"]+)"/g)].map((match) => match[1]);
    for (const path of [
      '/identity',
      '/identity/bootstrap',
      '/identity/organizations',
      '/identity/recovery',
      '/device',
      '/account',
      '/todos',
      '/identity/docs',
    ])
      expect(hrefs).toContain(path);
  });

  it('links only paths the demo serves (the API docs come from the OpenAPI viewer)', async () => {
    const links = LANDING_SECTIONS.flatMap((section) => section.links).filter((link) => link.href !== '/identity/docs');
    for (const link of links) {
      const res = await http.get(link.href);
      expect({ href: link.href, status: res.status }).not.toEqual({ href: link.href, status: 404 });
    }
  });

  it('answers HEAD / like GET / without a body', async () => {
    const res = await http.head('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(PAGE_HEADERS['content-security-policy']);
  });
});
