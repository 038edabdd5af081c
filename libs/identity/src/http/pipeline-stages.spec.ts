import { describe, it, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createTestExchange, Pipeline, type Exchange } from '@tessera/web';
import { FrozenClock } from '../runtime/frozen.clock.js';
import type { IdentityContext } from '../context/identity-context.js';
import type { SessionRecord } from '../store/identity-records.js';
import { issueSession } from '../sessions/session-issuer.js';
import type { SessionPepperRing } from '../sessions/session-keys.js';
import { identityCsrfMiddleware } from './csrf.middleware.js';
import { IDENTITY_ATTRIBUTES } from './identity-exchange.js';
import { identityAuthorityCheck, identityRequestId, identityRequestTime } from './pipeline-stages.js';
import { trustedProxyList } from './client-address.js';

const random = { bytes: (n: number) => new Uint8Array(randomBytes(n)) };
const clock = new FrozenClock('2026-07-14T08:15:30Z');
const pepper = { version: 'v1', key: randomBytes(32) };
const ring: SessionPepperRing = { current: pepper, byVersion: (v) => (v === 'v1' ? pepper : undefined) };
const ORIGIN = 'https://app.example.com';

async function run(exchange: Exchange, ...stages: Parameters<Pipeline['use']>[0][]) {
  let reached = false;
  const pipeline = new Pipeline();
  for (const stage of stages) pipeline.use(stage);
  pipeline.use(async () => {
    reached = true;
  });
  await pipeline.handle(exchange);
  return reached;
}

describe('identityRequestId', () => {
  it('reuses one valid id and echoes it', async () => {
    const { exchange, response } = createTestExchange({ headers: { 'X-Request-ID': 'abc-1.2:3_' } });
    await run(exchange, identityRequestId(random));
    expect(response.headers['x-request-id']).toBe('abc-1.2:3_');
  });

  it('mints req_ + 22 chars for absent, invalid or duplicated ids', async () => {
    for (const headers of [{}, { 'X-Request-ID': 'has space' }, { 'X-Request-ID': ['a', 'b'] }] as Record<
      string,
      string | string[]
    >[]) {
      const { exchange, response } = createTestExchange({ headers });
      await run(exchange, identityRequestId(random), identityRequestTime(clock));
      expect(String(response.headers['x-request-id'])).toMatch(/^req_[A-Za-z0-9_-]{22}$/);
      expect(exchange.attributes.get(IDENTITY_ATTRIBUTES.requestTime)).toEqual(clock.now());
    }
  });
});

describe('identityAuthorityCheck', () => {
  const check = (enforce: boolean, cidrs: string[] = []) =>
    identityAuthorityCheck({
      publicBaseUrl: ORIGIN,
      enforce,
      trusted: trustedProxyList(
        cidrs.length ? { mode: 'trusted_cidrs', trustedCidrs: cidrs } : { mode: 'direct_only' },
      ),
    });

  it('refuses identity paths on another authority in staging/production', async () => {
    const { exchange, response } = createTestExchange({ url: '/identity/v1/me', headers: { host: 'evil.example' } });
    expect(await run(exchange, check(true))).toBe(false);
    expect(response.status).toBe(400);
    expect((response.json as { error: { code: string } }).error.code).toBe('request_invalid');
  });

  it('accepts the public authority through a trusted proxy and ignores forwarded headers from others', async () => {
    const trusted = createTestExchange({
      url: '/identity/v1/me',
      headers: {
        host: 'internal:8080',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'app.example.com',
        'x-forwarded-for': '203.0.113.9',
      },
      peer: { address: '10.0.0.5', port: 1 },
    });
    expect(await run(trusted.exchange, check(true, ['10.0.0.0/8']))).toBe(true);
    expect(trusted.exchange.attributes.get(IDENTITY_ATTRIBUTES.clientAddress)).toBe('203.0.113.9');
    const spoofed = createTestExchange({
      url: '/identity/v1/me',
      headers: {
        host: 'internal:8080',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'app.example.com',
        'x-forwarded-for': '203.0.113.9',
      },
      peer: { address: '198.51.100.7', port: 1 },
    });
    expect(await run(spoofed.exchange, check(true, ['10.0.0.0/8']))).toBe(false);
    expect(spoofed.exchange.attributes.get(IDENTITY_ATTRIBUTES.clientAddress)).toBe('198.51.100.7');
  });

  it('does not enforce in development or on host paths', async () => {
    expect(
      await run(createTestExchange({ url: '/identity/v1/me', headers: { host: 'x' } }).exchange, check(false)),
    ).toBe(true);
    expect(await run(createTestExchange({ url: '/todos', headers: { host: 'x' } }).exchange, check(true))).toBe(true);
  });
});

describe('identityCsrfMiddleware (identity-http §2.2)', () => {
  const issued = issueSession({ clock, random }, ring, {
    userId: 'u',
    assurance: 'passkey',
    authenticationMethod: 'passkey',
    authenticatedAt: clock.now(),
    lifetimes: { idleSeconds: 3600, absoluteSeconds: 7200 },
  });
  const session = { ...issued.session, state: 'active' } as unknown as SessionRecord;
  const csrf = identityCsrfMiddleware({ allowedOrigins: [ORIGIN], headerName: 'X-CSRF-Token', peppers: ring });

  function exchangeWith(
    method: string,
    headers: Record<string, string | string[]>,
    options: { cookie: boolean; session: boolean; url?: string },
  ) {
    const created = createTestExchange({ method, url: options.url ?? '/identity/v1/logout', headers });
    if (options.cookie) created.exchange.attributes.set(IDENTITY_ATTRIBUTES.sessionCookiePresent, true);
    if (options.session)
      created.exchange.attributes.set(IDENTITY_ATTRIBUTES.context, { session } as unknown as IdentityContext);
    return created;
  }

  const good = { origin: ORIGIN, 'x-csrf-token': issued.csrfToken };
  const matrix: [
    string,
    string,
    Record<string, string | string[]>,
    { cookie: boolean; session: boolean; url?: string },
    boolean,
  ][] = [
    ['safe method with a session', 'GET', {}, { cookie: true, session: true }, true],
    ['unsafe, anonymous', 'POST', {}, { cookie: false, session: false }, true],
    ['unsafe, cookie + session + origin + token', 'POST', good, { cookie: true, session: true }, true],
    ['unsafe, no Origin', 'POST', { 'x-csrf-token': issued.csrfToken }, { cookie: true, session: true }, false],
    [
      'unsafe, foreign Origin',
      'DELETE',
      { ...good, origin: 'https://evil.example' },
      { cookie: true, session: true },
      false,
    ],
    ['unsafe, two Origins', 'POST', { ...good, origin: [ORIGIN, ORIGIN] }, { cookie: true, session: true }, false],
    ['unsafe, no token', 'PATCH', { origin: ORIGIN }, { cookie: true, session: true }, false],
    [
      'unsafe, two tokens',
      'POST',
      { ...good, 'x-csrf-token': [issued.csrfToken, issued.csrfToken] },
      { cookie: true, session: true },
      false,
    ],
    [
      'unsafe, token of another session',
      'POST',
      { ...good, 'x-csrf-token': Buffer.alloc(32, 1).toString('base64url') },
      { cookie: true, session: true },
      false,
    ],
    ['unsafe, cookie without a session', 'POST', good, { cookie: true, session: false }, false],
    ['unsafe, session without a cookie', 'PUT', good, { cookie: false, session: true }, false],
    ['a csrf query parameter', 'GET', {}, { cookie: false, session: false, url: '/x?CSRF_token=1' }, false],
    [
      'the header name as a query parameter',
      'GET',
      {},
      { cookie: false, session: false, url: '/x?x-csrf-token=1' },
      false,
    ],
    [
      'an undecodable query on a safe method (the route parses it)',
      'GET',
      {},
      { cookie: false, session: false, url: '/x?a=%zz' },
      true,
    ],
    ['an undecodable query on an unsafe method', 'POST', {}, { cookie: false, session: false, url: '/x?a=%zz' }, false],
    [
      'a csrf name behind an undecodable escape',
      'GET',
      {},
      { cookie: false, session: false, url: '/x?%63srf%E0=1' },
      false,
    ],
    ['an oversized query', 'GET', {}, { cookie: false, session: false, url: `/x?a=${'b'.repeat(8192)}` }, false],
  ];

  it.each(matrix)('%s', async (_name, method, headers, state, allowed) => {
    const { exchange, response } = exchangeWith(method, headers, state);
    expect(await run(exchange, csrf)).toBe(allowed);
    if (!allowed) {
      expect(response.status).toBe(403);
      expect((response.json as { error: { code: string } }).error.code).toBe('csrf_invalid');
    }
  });
});
