import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { decodeAuditCursor, encodeAuditCursor, StoreError } from '@tessera/identity';
import { testUuidV7, testVariedAuditEvents } from '@tessera/identity-testing';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { identityKernelOf } from '../../support/identity-kernel.js';
import {
  getAs,
  NOT_FOUND,
  seedMember,
  seedOrganization,
  seedOutsider,
  tenantRows,
  withoutRequestId,
  type SeededMember,
} from '../../support/tenant-seed.js';
import type { TestSession } from '../../support/passkey-client.js';
import { insertEvents, newestFirst, seedEvent, type SeedEvent } from './audit-seed.js';
import { parseCsv } from '../../support/csv-reader.js';
// White-box: the batch size, so the large organization spans several batches.
import {
  AUDIT_EXPORT_BATCH_SIZE,
  AUDIT_EXPORT_READS_IN_FLIGHT,
} from '../../../libs/identity/src/audit/audit-export.batches.js';
// White-box: the CSV record encoder, to rebuild the expected CSV from route 29's views.
import { csvRow } from '../../../libs/identity/src/audit/audit-csv.js';

/** The export's event cap in this app: below the large organization's size, inside its second batch. */
const MAX_EVENTS = AUDIT_EXPORT_BATCH_SIZE + 2000;
const LARGE = 2 * AUDIT_EXPORT_BATCH_SIZE + 2000;
/** The CSV header row (identity-http §4.4): the view's fields in order. */
const CSV_HEADER = [
  'id',
  'actor',
  'organizationId',
  'action',
  'target',
  'outcome',
  'reasonCode',
  'request',
  'occurredAt',
];
const SAFE_FIELDS = ['action', 'actor', 'id', 'occurredAt', 'organizationId', 'outcome', 'request', 'target'];
const FILENAME = /^attachment; filename="audit-[0-9a-f-]{36}-\d{8}T\d{6}Z\.(ndjson|csv)"$/;

const exportPath = (organizationId: string, query: string) =>
  `/identity/v1/organizations/${organizationId}/audit-events/export${query === '' ? '' : `?${query}`}`;

/** The export as text (JSON error bodies parsed, as the OpenAPI response check expects). */
function exportAs(identity: IdentityTestApp, organizationId: string, query: string, session?: TestSession) {
  return getAs(identity, exportPath(organizationId, query), session)
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        done(null, /^application\/json/.test(String(res.headers['content-type'])) ? JSON.parse(text) : text),
      );
    });
}

/** NDJSON lines: the events, and the trailer when the last line is one. */
function ndjson(text: string): {
  events: Record<string, any>[];
  trailer?: { cursor: string | null; complete: boolean };
} {
  expect(text.endsWith('\n')).toBe(true);
  const lines = text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
  const last = lines.at(-1);
  if (last !== undefined && 'trailer' in last) {
    expect(Object.keys(last)).toEqual(['trailer']);
    return { events: lines.slice(0, -1), trailer: last['trailer'] };
  }
  return { events: lines };
}

async function insertLarge(identity: IdentityTestApp, organizationId: string, count: number): Promise<SeedEvent[]> {
  const base = Date.parse('2026-07-10T00:00:00.000Z');
  // Three events per instant: ties are ordered by id.
  const events = Array.from({ length: count }, (_, i) => seedEvent(base + Math.floor(i / 3) * 1000));
  for (let i = 0; i < events.length; i += 1000) await insertEvents(identity, organizationId, events.slice(i, i + 1000));
  return [...events].sort(newestFirst);
}

describe('GET /identity/v1/organizations/{orgId}/audit-events/export', () => {
  let identity: IdentityTestApp;
  let organizationId: string;
  let admin: SeededMember;
  let large: string;
  let largeOwner: SeededMember;
  let largeOrder: string[];
  const base = Date.parse('2026-07-14T08:00:00.000Z');

  beforeAll(async () => {
    identity = await bootIdentityApp({
      audit: { userAgent: 'pseudonymize', retentionDays: 90 },
      limits: { auditExportMaxEvents: MAX_EVENTS } as never,
    });
    organizationId = await seedOrganization(identity);
    admin = await seedMember(identity, organizationId, 'admin');
    await insertEvents(
      identity,
      organizationId,
      Array.from({ length: 7 }, (_, i) => seedEvent(base + (i % 2) * 1000)),
    );
    large = await seedOrganization(identity);
    largeOwner = await seedMember(identity, large, 'owner');
    largeOrder = (await insertLarge(identity, large, LARGE)).map((e) => e.id);
  });
  afterAll(async () => identity?.close());

  it('streams NDJSON newest first in the route-29 order and safe view, then a trailer whose cursor is the last event written', async () => {
    const res = await exportAs(identity, organizationId, 'format=ndjson', admin.session);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-disposition']).toMatch(FILENAME);
    expect(res.headers['content-disposition']).toContain(`audit-${organizationId}-20260714T081530Z.ndjson`);
    const { events, trailer } = ndjson(res.body);
    const page = await getAs(
      identity,
      `/identity/v1/organizations/${organizationId}/audit-events?limit=100`,
      admin.session,
    );
    expect(events).toEqual(page.body.events);
    expect(events).toHaveLength(7);
    for (const event of events) expect(Object.keys(event).sort()).toEqual(SAFE_FIELDS);
    const last = events.at(-1)!;
    expect(trailer).toEqual({
      cursor: encodeAuditCursor({ organizationId, occurredAt: new Date(last['occurredAt']), eventId: last['id'] }),
      complete: true,
    });
    expect(res.body).not.toMatch(/v1\.[A-Za-z0-9_-]{43}/);
    expect(res.body).not.toMatch(/userAgent|clientIp|digest/i);
  });

  it('streams CSV: a header row of the view’s fields, RFC 4180 records with nested objects as JSON, then the # cursor trailer', async () => {
    const [json, res] = await Promise.all([
      exportAs(identity, organizationId, 'format=ndjson', admin.session),
      exportAs(identity, organizationId, 'format=csv', admin.session),
    ]);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-disposition']).toMatch(FILENAME);
    expect(res.headers['content-disposition']).toMatch(/\.csv"$/);
    const text = res.body as string;
    const trailerAt = text.lastIndexOf('# cursor=');
    const { events, trailer } = ndjson(json.body);
    expect(text.slice(trailerAt)).toBe(`# cursor=${trailer!.cursor} complete=true\r\n`);
    const [header, ...rows] = parseCsv(text.slice(0, trailerAt));
    expect(header).toEqual(CSV_HEADER);
    expect(rows).toHaveLength(events.length);
    rows.forEach((row, i) => {
      const event = events[i]!;
      expect(row).toEqual([
        event['id'],
        JSON.stringify(event['actor']),
        event['organizationId'],
        event['action'],
        JSON.stringify(event['target']),
        event['outcome'],
        '',
        JSON.stringify(event['request']),
        event['occurredAt'],
      ]);
    });
    expect(text).not.toMatch(/v1\.[A-Za-z0-9_-]{43}/);
  });

  it('writes byte for byte the lines of route 29’s views (NDJSON: JSON.stringify; CSV: csvRow of the view’s fields) for varied events', async () => {
    const organization = await seedOrganization(identity);
    const owner = await seedMember(identity, organization, 'owner');
    const store = identityKernelOf(identity.app).store;
    const varied = testVariedAuditEvents(organization, base + 86_400_000);
    for (const event of varied) expect(await store.appendAuditEvent(event)).toEqual({ ok: true, value: undefined });
    const views: Record<string, unknown>[] = [];
    for (let cursor: string | undefined; ;) {
      const page = await getAs(
        identity,
        `/identity/v1/organizations/${organization}/audit-events?limit=7${cursor === undefined ? '' : `&cursor=${cursor}`}`,
        owner.session,
      );
      views.push(...(page.body.events as Record<string, unknown>[]));
      cursor = page.body.nextCursor;
      if (cursor === undefined) break;
    }
    expect(views).toHaveLength(varied.length);
    const [json, csv] = await Promise.all([
      exportAs(identity, organization, 'format=ndjson', owner.session),
      exportAs(identity, organization, 'format=csv', owner.session),
    ]);
    // Compared as strings, line by line (the route-29 views were only parsed and stringified again,
    // which keeps their key order and text).
    const jsonLines = (json.body as string).split('\n');
    expect(jsonLines.slice(0, views.length)).toEqual(views.map((view) => JSON.stringify(view)));
    const csvText = csv.body as string;
    expect(csvText.slice(0, csvText.lastIndexOf('# cursor='))).toBe(
      csvRow(CSV_HEADER) + views.map((view) => csvRow(CSV_HEADER.map((column) => view[column]))).join(''),
    );
  });

  it('neutralises CSV formula injection: a reason code starting with = + - @ or tab is prefixed with a quote', async () => {
    const organization = await seedOrganization(identity);
    const owner = await seedMember(identity, organization, 'owner');
    const events = Array.from({ length: 5 }, (_, i) => seedEvent(base + i * 1000));
    await insertEvents(identity, organization, events);
    const payloads = ['=HYPERLINK("http://evil.example","x")', '+1+cmd|/C calc', '-2+3', '@SUM(A1:A2)', '\t=1'];
    for (const [i, payload] of payloads.entries()) {
      await tenantRows(identity).sql('update tessera_identity.audit_events set reason_code = ? where id = ?', [
        payload,
        events[i]!.id,
      ]);
    }
    const res = await exportAs(identity, organization, 'format=csv', owner.session);
    const text = res.body as string;
    const rows = parseCsv(text.slice(0, text.lastIndexOf('# cursor='))).slice(1);
    const reasons = rows.map((row) => row[6]!);
    // Newest first: the last inserted payload comes first.
    expect(reasons).toEqual([...payloads].reverse().map((p) => `'${p}`));
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    // The NDJSON view carries the reason code unchanged.
    const json = ndjson((await exportAs(identity, organization, 'format=ndjson', owner.session)).body);
    expect(json.events.map((e) => e['reasonCode'])).toEqual([...payloads].reverse());
  });

  it('writes at most the event cap across several batches, and its trailer cursor resumes with exactly the rest', async () => {
    const first = await exportAs(identity, large, 'format=ndjson', largeOwner.session);
    expect(first.status).toBe(200);
    const head = ndjson(first.body);
    expect(head.events.map((e) => e['id'])).toEqual(largeOrder.slice(0, MAX_EVENTS));
    expect(head.trailer!.complete).toBe(false);
    expect(decodeAuditCursor(head.trailer!.cursor!)?.eventId).toBe(largeOrder[MAX_EVENTS - 1]);

    const rest = await exportAs(identity, large, `format=ndjson&cursor=${head.trailer!.cursor}`, largeOwner.session);
    const tail = ndjson(rest.body);
    expect(tail.events.map((e) => e['id'])).toEqual(largeOrder.slice(MAX_EVENTS));
    expect(tail.trailer).toEqual({
      cursor: expect.any(String),
      complete: true,
    });
    expect(decodeAuditCursor(tail.trailer!.cursor!)?.eventId).toBe(largeOrder.at(-1));
    // From the end, nothing is left: the trailer echoes the cursor it was given.
    const none = ndjson(
      (await exportAs(identity, large, `format=ndjson&cursor=${tail.trailer!.cursor}`, largeOwner.session)).body,
    );
    expect(none).toEqual({ events: [], trailer: { cursor: tail.trailer!.cursor, complete: true } });
  });

  it('resumes from route 29’s nextCursor as from a trailer cursor', async () => {
    const page = await getAs(
      identity,
      `/identity/v1/organizations/${large}/audit-events?limit=100`,
      largeOwner.session,
    );
    const res = await exportAs(identity, large, `format=csv&cursor=${page.body.nextCursor}`, largeOwner.session);
    const text = res.body as string;
    const rows = parseCsv(text.slice(0, text.lastIndexOf('# cursor='))).slice(1);
    expect(rows.map((row) => row[0])).toEqual(largeOrder.slice(100, 100 + MAX_EVENTS));
    expect(text).toMatch(/# cursor=[A-Za-z0-9_-]+ complete=false\r\n$/);
  });

  it.each([
    [''],
    ['format='],
    ['format'],
    ['format=json'],
    ['format=NDJSON'],
    ['format=csv&format=csv'],
    ['format=csv&format=ndjson'],
    ['FORMAT=csv'],
    ['format=csv&limit=5'],
    ['limit=5'],
    ['format=csv&'],
    ['&format=csv'],
    ['format=%63sv'],
    ['format=csv&cursor='],
    ['format=csv&cursor=abc'],
    ['cursor=abc'],
  ])('rejects the missing, unknown, repeated or non-canonical query %p with 400 request_invalid', async (query) => {
    const res = await exportAs(identity, organizationId, query, admin.session);
    expect({ query, status: res.status, code: res.body.error?.code }).toEqual({
      query,
      status: 400,
      code: 'request_invalid',
    });
  });

  it('answers the same 404 without audit.read, to another tenant, for an unknown or deleted organization; another organization’s cursor is 400', async () => {
    const cursor = (
      await getAs(identity, `/identity/v1/organizations/${organizationId}/audit-events?limit=2`, admin.session)
    ).body.nextCursor as string;
    const viewer = await seedMember(identity, organizationId, 'viewer');
    const publisher = await seedMember(identity, organizationId, 'publisher');
    const otherOrganization = await seedOrganization(identity);
    const otherAdmin = await seedMember(identity, otherOrganization, 'admin');
    const outsider = await seedOutsider(identity);
    const deleted = await seedOrganization(identity, 'deleted');
    const deletedAdmin = await seedMember(identity, deleted, 'owner');
    const attempts = [
      exportAs(identity, organizationId, 'format=csv', viewer.session),
      exportAs(identity, organizationId, 'format=ndjson', publisher.session),
      exportAs(identity, organizationId, 'format=csv', otherAdmin.session),
      exportAs(identity, organizationId, 'format=csv', outsider.session),
      exportAs(identity, testUuidV7(), 'format=csv', admin.session),
      exportAs(identity, deleted, 'format=csv', deletedAdmin.session),
      exportAs(identity, organizationId, `format=csv&cursor=${cursor}`, otherAdmin.session),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.headers['content-disposition']).toBeUndefined();
      expect(withoutRequestId(res.body)).toEqual(NOT_FOUND);
    }
    const foreign = await exportAs(identity, otherOrganization, `format=ndjson&cursor=${cursor}`, otherAdmin.session);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('request_invalid');
    const anonymous = await exportAs(identity, organizationId, 'format=csv');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('authentication_required');
  });

  it('ends without a trailer when the database fails midway, and answers 503 when it fails before the first event', async () => {
    const store = identityKernelOf(identity.app).store;
    const read = store.exportAuditEventLines.bind(store);
    let calls = 0;
    const spy = jest.spyOn(store, 'exportAuditEventLines').mockImplementation((...args) => {
      calls += 1;
      return calls === 1 ? read(...args) : Promise.reject(new StoreError('unavailable'));
    });
    try {
      const res = await exportAs(identity, large, 'format=ndjson', largeOwner.session);
      expect(res.status).toBe(200);
      const { events, trailer } = ndjson(res.body);
      expect(trailer).toBeUndefined();
      expect(events.map((e) => e['id'])).toEqual(largeOrder.slice(0, AUDIT_EXPORT_BATCH_SIZE));
      // The first batch, then the reads started ahead of the writer (the second one fails).
      expect(calls).toBeGreaterThanOrEqual(2);
      expect(calls).toBeLessThanOrEqual(1 + AUDIT_EXPORT_READS_IN_FLIGHT);
      const before = calls;
      const csv = await exportAs(identity, large, 'format=csv', largeOwner.session);
      expect(csv.status).toBe(503);
      expect(csv.body.error.code).toBe('service_unavailable');
      expect(csv.headers['content-disposition']).toBeUndefined();
      expect(calls).toBe(before + 1);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers HEAD with the export’s headers and no body', async () => {
    const res = await identityHead(identity, exportPath(organizationId, 'format=csv'), admin.session);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(FILENAME);
    expect(res.text ?? '').toBe('');
  });
});

function identityHead(identity: IdentityTestApp, path: string, session: TestSession) {
  return request(identity.app.getHttpServer()).head(path).set('cookie', session.cookie);
}
