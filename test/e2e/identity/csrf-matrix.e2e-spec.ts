import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { All, Controller } from '@nestjs/common';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { RequireIdentity } from '@tessera/identity';
import { seedPasskeySession, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { bootIdentityHostApp } from '../../support/identity-host-app.js';

@Controller('host')
class GuardedController {
  @All('resource')
  @RequireIdentity()
  handle(): { ok: true } {
    return { ok: true };
  }
}

type CookieCase = 'none' | 'valid' | 'revoked';
type TokenCase = 'none' | 'valid' | 'other_session' | 'malformed';
type OriginCase = 'none' | 'exact' | 'foreign' | 'other_port';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const COOKIES: CookieCase[] = ['none', 'valid', 'revoked'];
const TOKENS: TokenCase[] = ['none', 'valid', 'other_session', 'malformed'];
const ORIGINS: OriginCase[] = ['none', 'exact', 'foreign', 'other_port'];

/**
 * The expected answer of identity-http §2.1–2.2 on a host route guarded by `@RequireIdentity()`:
 * safe methods are never CSRF-checked; a failing cookie on a host route counts as absent (for
 * resolution and CSRF) and the guard answers its recorded failure; a valid cookie on an unsafe
 * method needs exactly the allowed Origin and the session-bound token.
 */
function expected(method: (typeof METHODS)[number], cookie: CookieCase, token: TokenCase, origin: OriginCase) {
  if (cookie === 'none') return { status: 401, code: 'authentication_required' };
  if (cookie === 'revoked') return { status: 401, code: 'session_revoked' };
  if (method === 'get') return { status: 200 };
  if (token === 'valid' && origin === 'exact') return { status: 200 };
  return { status: 403, code: 'csrf_invalid' };
}

/** A POST with repeated header lines (an array value is sent as one line per element). */
async function rawPost(server: Server, headers: Record<string, string | string[]>): Promise<{ status: number }> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/host/resource' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.on('error', reject);
    req.end();
  });
}

describe('CSRF matrix: cookie × X-CSRF-Token × Origin × method (identity-http §2.2)', () => {
  let identity: IdentityTestApp;
  let valid: { cookie: string; csrfToken: string };
  let other: { cookie: string; csrfToken: string };
  let revoked: { cookie: string; csrfToken: string };

  beforeAll(async () => {
    identity = await bootIdentityHostApp({ controllers: [GuardedController] });
    valid = await seedPasskeySession(identity);
    other = await seedPasskeySession(identity);
    revoked = await seedPasskeySession(identity);
    const res = await request(identity.app.getHttpServer())
      .post('/identity/v1/logout')
      .set('cookie', revoked.cookie)
      .set('origin', TEST_ORIGIN)
      .set('x-csrf-token', revoked.csrfToken);
    expect(res.status).toBe(200);
  });
  afterAll(async () => identity?.close());

  it('answers every combination as the contract says (240 requests)', async () => {
    const failures: string[] = [];
    for (const method of METHODS)
      for (const cookie of COOKIES)
        for (const token of TOKENS)
          for (const origin of ORIGINS) {
            let req = request(identity.app.getHttpServer())[method]('/host/resource');
            const session = cookie === 'valid' ? valid : cookie === 'revoked' ? revoked : undefined;
            if (session) req = req.set('cookie', session.cookie);
            const tokens = {
              none: undefined,
              valid: session?.csrfToken ?? valid.csrfToken,
              other_session: other.csrfToken,
              malformed: 'not-a-token',
            };
            if (tokens[token] !== undefined) req = req.set('x-csrf-token', tokens[token]!);
            const origins = {
              none: undefined,
              exact: TEST_ORIGIN,
              foreign: 'https://evil.example',
              other_port: 'http://localhost:3001',
            };
            if (origins[origin] !== undefined) req = req.set('origin', origins[origin]!);
            const res = await req;
            const want = expected(method, cookie, token, origin);
            const got = { status: res.status, ...(res.status === 200 ? {} : { code: res.body?.error?.code }) };
            if (JSON.stringify(got) !== JSON.stringify(want))
              failures.push(
                `${method} cookie=${cookie} token=${token} origin=${origin}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`,
              );
          }
    expect(failures).toEqual([]);
  });

  it('rejects duplicated X-CSRF-Token and Origin headers and CSRF query parameters', async () => {
    const server = identity.app.getHttpServer() as Server;
    const duplicateToken = await rawPost(server, {
      cookie: valid.cookie,
      origin: TEST_ORIGIN,
      'x-csrf-token': [valid.csrfToken, valid.csrfToken],
    });
    expect(duplicateToken.status).toBe(403);
    const duplicateOrigin = await rawPost(server, {
      cookie: valid.cookie,
      origin: [TEST_ORIGIN, TEST_ORIGIN],
      'x-csrf-token': valid.csrfToken,
    });
    expect(duplicateOrigin.status).toBe(403);
    const control = await rawPost(server, {
      cookie: valid.cookie,
      origin: TEST_ORIGIN,
      'x-csrf-token': valid.csrfToken,
    });
    expect(control.status).toBe(200);
    for (const name of ['csrf', '_csrf', 'csrftoken', 'csrf_token', 'csrf-token', 'X-CSRF-Token']) {
      const res = await request(server).get(`/host/resource?${name}=x`).set('cookie', valid.cookie);
      expect([res.status, res.body.error?.code]).toEqual([403, 'csrf_invalid']);
    }
  });
});
