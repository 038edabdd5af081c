import type { RouteDoc } from './routes/route-doc.js';
import { describe, it, expect } from '@jest/globals';
import { answersCookieFailures } from './identity.router.js';
import { anonymousRouteMatchers, route, type IdentityRouteTable } from './routes/route-table.js';

const noop = async (): Promise<void> => undefined;

describe('anonymous identity routes derived from the route tables', () => {
  it('treats a failing cookie as absent exactly on the routes that admit anonymous callers', () => {
    const anonymous = [
      'POST /identity/v1/passkeys/authentication/start',
      'POST /identity/v1/passkeys/authentication/finish',
      'POST /identity/v1/recovery/codes/use',
      'POST /identity/v1/recovery/admin/tickets/redeem',
      'POST /identity/v1/invitations/enroll',
      'POST /identity/v1/bootstrap',
      'GET /identity/v1/client-config',
      'HEAD /identity/v1/client-config',
      'GET /identity/v1/client-config/',
    ];
    for (const entry of anonymous) {
      const [method, path] = entry.split(' ') as [string, string];
      expect([entry, answersCookieFailures(method, path)]).toEqual([entry, false]);
    }
    const answered = [
      'GET /identity/v1/me',
      'POST /identity/v1/logout',
      'POST /identity/v1/passkeys/registration/start',
      'POST /identity/v1/passkeys/step-up/finish',
      'POST /identity/v1/recovery/codes/replace',
      'POST /identity/v1/invitations/accept',
      'GET /identity/v1/bootstrap',
      'POST /identity/v1/client-config',
      'GET /identity/v1/unknown',
      'GET /identity/v1/organizations/01890000-0000-7000-8000-000000000001/audit-events',
    ];
    for (const entry of answered) {
      const [method, path] = entry.split(' ') as [string, string];
      expect([entry, answersCookieFailures(method, path)]).toEqual([entry, true]);
    }
    expect(answersCookieFailures('GET', '/todos')).toBe(false);
  });

  it('matches parameterised anonymous rows segment by segment (a future family declares them the same way)', () => {
    const doc: RouteDoc = {
      tag: 'client',
      summary: 'A test row',
      responses: { 200: { description: 'ok', body: {} } },
      errors: [],
    };
    const table: IdentityRouteTable = [
      route({
        method: 'POST',
        path: '/identity/v1/device/:grantId/cancel',
        callers: { anonymous: true },
        doc,
        handle: noop,
      }),
      route({ method: 'GET', path: '/identity/v1/scim/v2.0/Users', callers: { anonymous: true }, doc, handle: noop }),
      route({ method: 'GET', path: '/identity/v1/private', callers: { user: true }, doc, handle: noop }),
    ];
    const matchers = anonymousRouteMatchers([table]);
    const admitted = (key: string) => matchers.some((matcher) => matcher.test(key));
    expect(admitted('POST /identity/v1/device/abc/cancel')).toBe(true);
    expect(admitted('POST /identity/v1/device/abc/def/cancel')).toBe(false);
    expect(admitted('GET /identity/v1/scim/v2.0/Users')).toBe(true);
    expect(admitted('HEAD /identity/v1/scim/v2.0/Users')).toBe(true);
    expect(admitted('GET /identity/v1/scim/v2x0/Users')).toBe(false);
    expect(admitted('GET /identity/v1/private')).toBe(false);
  });
});
