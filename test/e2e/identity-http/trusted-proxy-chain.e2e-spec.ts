import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bootIdentityApp, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';

const START = '/identity/v1/passkeys/authentication/start';
const LIMIT = 2;

/**
 * Regression (issue 11 item 7): with two trusted hops, or an `ip:port` element, every client was
 * keyed as the nearest proxy and shared one limiter bucket. The test app's own peer (127.0.0.1 /
 * ::1) is the edge of the trusted network, 10.0.0.0/8 the inner proxies.
 */
describe('trusted-proxy chains over HTTP: one limiter bucket per client behind two trusted hops', () => {
  let identity: IdentityTestApp;

  beforeAll(async () => {
    identity = await bootIdentityApp({
      forwarding: { mode: 'trusted_cidrs', trustedCidrs: ['127.0.0.0/8', '::1/128', '10.0.0.0/8'] },
      rateLimits: { passkey_auth_start: { limit: LIMIT, windowSeconds: 60 } },
    });
  });
  afterAll(async () => {
    await identity?.close();
  });

  /** `LIMIT` starts pass, the next one is 429: the bucket of whoever `headers` resolve to is full. */
  async function exhaust(headers: Record<string, string>): Promise<void> {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) statuses.push((await start(headers)).status);
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(200), 429]);
  }

  function start(headers: Record<string, string>) {
    let req = request(identity.app.getHttpServer()).post(START).set('origin', TEST_ORIGIN);
    for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
    return req;
  }

  it('keys X-Forwarded-For clients separately behind two trusted hops, with ip:port and bracketed IPv6 elements', async () => {
    await exhaust({ 'x-forwarded-for': '203.0.113.7, 10.0.0.5' });
    // The same client through a port-carrying element is the same bucket.
    expect((await start({ 'x-forwarded-for': '203.0.113.7:51000, 10.0.0.6:443' })).status).toBe(429);
    expect((await start({ 'x-forwarded-for': '203.0.113.8:51000, 10.0.0.5' })).status).toBe(200);
    expect((await start({ 'x-forwarded-for': '[2001:db8::8]:443, 10.0.0.5' })).status).toBe(200);
  });

  it('takes the first untrusted hop from the right: a forged left-most entry does not pick the bucket', async () => {
    await exhaust({ 'x-forwarded-for': '198.51.100.20, 10.0.0.9' });
    // The client prepended a fresh address; the proxies appended the real one.
    expect((await start({ 'x-forwarded-for': '192.0.2.99, 198.51.100.20, 10.0.0.9' })).status).toBe(429);
  });

  it('walks RFC 7239 Forwarded with the same trust rule', async () => {
    await exhaust({ forwarded: 'for=198.51.100.30;proto=https, for="10.0.0.7:8080"' });
    expect((await start({ forwarded: 'for="198.51.100.30:1234", for=10.0.0.8' })).status).toBe(429);
    expect((await start({ forwarded: 'for="[2001:db8::30]:443", for=10.0.0.8' })).status).toBe(200);
    expect((await start({ forwarded: 'for=198.51.100.31, for=10.0.0.8' })).status).toBe(200);
  });

  it('attributes a request whose Forwarded and X-Forwarded-For disagree to the direct peer, not to either claim', async () => {
    await exhaust({ 'x-forwarded-for': '198.51.100.40, 10.0.0.5', forwarded: 'for=198.51.100.41' });
    // A consistent pair is the client's own bucket (fresh), and the claimed addresses were never charged.
    expect((await start({ 'x-forwarded-for': '198.51.100.40' })).status).toBe(200);
    expect((await start({ forwarded: 'for=198.51.100.41' })).status).toBe(200);
    // Another conflicting pair lands in the same (full) peer bucket.
    expect((await start({ 'x-forwarded-for': '198.51.100.50', forwarded: 'for=198.51.100.51' })).status).toBe(429);
  });
});
