import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { encodeAuditCursor } from '@tessera/identity';
import { testUuidV7 } from '@tessera/identity-testing';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import {
  getAs,
  NOT_FOUND,
  seedMember,
  seedOrganization,
  seedOutsider,
  withoutRequestId,
  type SeededMember,
} from '../../support/tenant-seed.js';
import { insertEvents, newestFirst, seedEvent } from './audit-seed.js';

const path = (organizationId: string, query = '') =>
  `/identity/v1/organizations/${organizationId}/audit-events${query === '' ? '' : `?${query}`}`;

describe('GET /identity/v1/organizations/{orgId}/audit-events (route 29)', () => {
  let identity: IdentityTestApp;
  let organizationId: string;
  let admin: SeededMember;
  let cursor: string;
  const base = Date.parse('2026-07-14T08:00:00.000Z');

  beforeAll(async () => {
    identity = await bootIdentityApp({ audit: { userAgent: 'pseudonymize', retentionDays: 90 } });
    organizationId = await seedOrganization(identity);
    admin = await seedMember(identity, organizationId, 'admin');
    await insertEvents(
      identity,
      organizationId,
      Array.from({ length: 7 }, (_, i) => seedEvent(base + (i % 2) * 1000)),
    );
    const first = await getAs(identity, path(organizationId, 'limit=2'), admin.session);
    cursor = first.body.nextCursor;
  });
  afterAll(async () => identity?.close());

  const query = (q: string, session = admin.session, organization = organizationId) =>
    getAs(identity, path(organization, q), session);

  async function expectInvalid(q: string, session = admin.session, organization = organizationId) {
    const res = await query(q, session, organization);
    expect({ q, status: res.status, code: res.body.error?.code }).toEqual({ q, status: 400, code: 'request_invalid' });
  }

  it('answers newest first with the default page size and an opaque cursor only while more events exist', async () => {
    const res = await query('');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.events).toHaveLength(7);
    expect(res.body.nextCursor).toBeUndefined();
    const times = res.body.events.map((e: { occurredAt: string }) => e.occurredAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('shows exactly the safe fields: never the user-agent or client pseudonym, digests or payloads', async () => {
    const res = await query('limit=100');
    for (const event of res.body.events) {
      expect(Object.keys(event).sort()).toEqual(
        ['action', 'actor', 'id', 'occurredAt', 'organizationId', 'outcome', 'request', 'target'].sort(),
      );
      expect(Object.keys(event.request).sort()).toEqual(['method', 'path', 'requestId', 'trustedProxy']);
      expect(event.actor).toEqual({ type: 'system' });
    }
    expect(res.text).not.toMatch(/v1\.[A-Za-z0-9_-]{43}/);
    expect(res.text).not.toMatch(/userAgent|clientIp|digest/i);
  });

  it.each([
    ['limit=01'],
    ['limit=+5'],
    ['limit=%2B5'],
    ['limit=5.0'],
    ['limit=%205'],
    ['limit=1e2'],
    ['limit=0'],
    ['limit=101'],
    ['limit=-1'],
    ['limit=0x10'],
    ['limit=%35'],
    ['limit='],
    ['limit'],
    ['=5'],
    ['&'],
    ['limit=5&'],
    ['&limit=5'],
    ['limit=5&limit=5'],
    ['limit=5&limit=6'],
    ['LIMIT=5'],
    ['page=2'],
    ['limit=5&offset=10'],
    ['cursor='],
    ['cursor'],
    ['cursor=abc'],
    ['cursor=%3D'],
  ])('rejects the non-canonical, empty, repeated or unknown parameter %s with 400 request_invalid', async (q) => {
    await expectInvalid(q);
  });

  it('rejects a repeated, tampered, padded, oversized or non-canonical cursor with 400', async () => {
    await expectInvalid(`cursor=${cursor}&cursor=${cursor}`);
    await expectInvalid(`cursor=${cursor}=`);
    await expectInvalid(`cursor=${cursor.slice(0, -1)}`);
    await expectInvalid(`cursor=${'A'.repeat(1025)}`);
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    const reencode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    const [, org, at, id] = decoded.split('\n') as [string, string, string, string];
    for (const text of [
      `v2\n${org}\n${at}\n${id}`,
      `v1\n${org}\n${at.replace('.000Z', 'Z')}\n${id}`,
      `v1\n${org}\n${at.replace('Z', '+00:00')}\n${id}`,
      `v1\n${org}\n2026-02-30T00:00:00.000Z\n${id}`,
      `v1\n${org.toUpperCase()}\n${at}\n${id}`,
      `v1\n${org}\n${at}\n${id}\n`,
      `v1\n${org}\n${at}`,
      `v1\r\n${org}\n${at}\n${id}`,
      `v1\n${org}\n${at}\n${id.slice(0, 14)}4${id.slice(15)}`,
      `v1\n${org}\n${at}\n${id}${'x'.repeat(600)}`,
    ]) {
      await expectInvalid(`cursor=${reencode(text)}`);
    }
    // The standard base64 alphabet and non-zero trailing bits are not the canonical encoding.
    const standard = cursor.replace(/-/g, '+').replace(/_/g, '/');
    if (standard !== cursor) await expectInvalid(`cursor=${standard}`);
    const last = cursor.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const flipped = alphabet[(alphabet.indexOf(last) + 1) % 64]!;
    if (cursor.length % 4 !== 0) await expectInvalid(`cursor=${cursor.slice(0, -1)}${flipped}`);
  });

  it('accepts canonical limits 1..100 in any parameter order; every other decimal-looking limit is 400 (property)', async () => {
    const res = await query(`cursor=${cursor}&limit=3`);
    expect(res.status).toBe(200);
    expect(res.body.events).toHaveLength(3);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom(...'0123456789+-.eE x%'), maxLength: 5 }), async (limit) => {
        const canonical = /^[1-9][0-9]{0,2}$/.test(limit) && Number(limit) <= 100;
        const answer = await query(`limit=${encodeURI(limit)}`);
        expect(answer.status).toBe(canonical && encodeURI(limit) === limit ? 200 : 400);
        if (answer.status === 200) expect(answer.body.events.length).toBeLessThanOrEqual(Number(limit));
      }),
      { numRuns: 60 },
    );
  });

  it('answers the same 404 without audit.read, to another tenant, for an unknown or deleted organization, whatever the cursor', async () => {
    const viewer = await seedMember(identity, organizationId, 'viewer');
    const publisher = await seedMember(identity, organizationId, 'publisher');
    const otherOrganization = await seedOrganization(identity);
    const otherAdmin = await seedMember(identity, otherOrganization, 'admin');
    const outsider = await seedOutsider(identity);
    const deleted = await seedOrganization(identity, 'deleted');
    const deletedAdmin = await seedMember(identity, deleted, 'owner');
    const attempts = [
      query('', viewer.session),
      query('', publisher.session),
      query('', otherAdmin.session),
      query('', outsider.session),
      query('', admin.session, testUuidV7()),
      query('', deletedAdmin.session, deleted),
      query(`cursor=${cursor}`, otherAdmin.session),
      query(`cursor=${cursor}`, viewer.session),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(withoutRequestId(res.body)).toEqual(NOT_FOUND);
      expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'requestId', 'retryable']);
    }
    // Authorized in its own organization, the other tenant's cursor is a bad request, not a page.
    const foreign = await query(`cursor=${cursor}`, otherAdmin.session, otherOrganization);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('request_invalid');
  });

  it('checks the query before authorization: a malformed query is 400 for anyone signed in; anonymous is 401', async () => {
    const viewer = await seedMember(identity, organizationId, 'viewer');
    await expectInvalid('limit=0', viewer.session);
    await expectInvalid('limit=5', viewer.session, 'not-a-uuid');
    const anonymous = await getAs(identity, path(organizationId));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('authentication_required');
  });

  it('orders equal instants by descending id and pages without gaps from a cursor it issued', async () => {
    const all = (await query('limit=100')).body.events.map((e: { id: string }) => e.id);
    const pages: string[] = [];
    let next: string | undefined;
    do {
      const res = await query(next === undefined ? 'limit=3' : `limit=3&cursor=${next}`);
      expect(res.status).toBe(200);
      pages.push(...res.body.events.map((e: { id: string }) => e.id));
      next = res.body.nextCursor;
    } while (next !== undefined);
    expect(pages).toEqual(all);
    const events = (await query('limit=100')).body.events.map((e: { id: string; occurredAt: string }) => ({
      id: e.id,
      occurredAt: new Date(e.occurredAt),
    }));
    expect(events).toEqual([...events].sort(newestFirst));
    expect(encodeAuditCursor({ organizationId, occurredAt: events[1]!.occurredAt, eventId: events[1]!.id })).toBe(
      cursor,
    );
  });
});
