import { describe, it, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createTestExchange } from '@tessera/web';
import { FrozenClock } from '../runtime/frozen.clock.js';
import { IDENTITY_ATTRIBUTES } from '../http/identity-exchange.js';
import { AuditEventBuilder } from './audit-event.builder.js';

const clock = new FrozenClock('2026-07-14T08:15:30Z');
const random = { bytes: (n: number) => new Uint8Array(randomBytes(n)) };
const key = randomBytes(32);
const UA = 'Mozilla/5.0 (X11; Linux x86_64) SecretBrowser/1.0';

function exchange() {
  const { exchange: ex } = createTestExchange({
    method: 'POST',
    url: '/identity/v1/logout?x=1',
    headers: { 'user-agent': UA },
  });
  ex.attributes.set(IDENTITY_ATTRIBUTES.requestId, 'req_test');
  ex.attributes.set(IDENTITY_ATTRIBUTES.clientAddress, '203.0.113.9');
  return ex;
}

describe('AuditEventBuilder', () => {
  it('omits the user-agent by default and keys the client address', () => {
    const builder = new AuditEventBuilder({ clock, random }, key, { userAgent: 'omit', retentionDays: 90 });
    const event = builder.event(exchange(), clock.now(), {
      actor: { type: 'user', userId: 'u' },
      action: 'session.revoked',
      target: { type: 'session', id: 's' },
    });
    expect(event.request).toEqual({
      requestId: 'req_test',
      method: 'POST',
      path: '/identity/v1/logout',
      clientIpDigest: expect.stringMatching(/^v1\.[A-Za-z0-9_-]{43}$/),
      trustedProxy: false,
    });
    expect(JSON.stringify(event)).not.toContain('203.0.113.9');
    expect(JSON.stringify(event)).not.toContain('SecretBrowser');
    expect(event.outcome).toBe('succeeded');
    expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('pseudonymizes the user-agent when configured, never storing it raw', () => {
    const builder = new AuditEventBuilder({ clock, random }, key, { userAgent: 'pseudonymize', retentionDays: 90 });
    const event = builder.event(exchange(), clock.now(), {
      actor: { type: 'system' },
      action: 'identity.bootstrapped',
    });
    expect(event.request?.userAgent).toMatch(/^v1\.[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(event)).not.toContain('SecretBrowser');
  });

  it('records no request for events outside a request', () => {
    const builder = new AuditEventBuilder({ clock, random }, key, { userAgent: 'omit', retentionDays: 90 });
    expect(
      builder.event(undefined, clock.now(), { actor: { type: 'system' }, action: 'session.revoked' }).request,
    ).toBeNull();
  });
});
