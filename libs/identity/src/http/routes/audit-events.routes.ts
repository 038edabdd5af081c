import { auditEventView } from '../../audit/audit-event.view.js';
import { writeAuditExport } from '../../audit/audit-export.js';
import { auditExportEncoder } from '../../audit/audit-export.format.js';
import { parseAuditExportQuery, parseAuditQuery } from '../../audit/audit-query.js';
import { IdentityError } from '../../errors/identity.errors.js';
import { respondIdentityJson, respondIdentityStream } from '../identity-response.js';
import { route, type IdentityRouteTable } from './route-table.js';
import { ref } from './route-doc.js';

/**
 * Route 29 (identity-http §4.4): one page of the organization's audit stream, newest first by the
 * descending keyset (`occurredAt`, `id`), for a caller with `audit.read` there. Stage 9 rejects
 * any query but one canonical `limit` and one well-formed `cursor` (400); stage 10 answers the same
 * 404 for a missing capability, another tenant and an unknown organization; only then is a cursor
 * of another organization refused (400). `nextCursor` is present only when older events exist.
 *
 * The export (identity-http §4.4) streams the same stream and safe view under the same rules, as
 * NDJSON or CSV, ending with a trailer that carries the cursor to continue from; a response that
 * fails midway ends without one.
 */
export const AUDIT_EVENT_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: '/identity/v1/organizations/:orgId/audit-events',
    callers: { user: true },
    doc: {
      tag: 'audit',
      summary: 'One page of an organization’s audit events',
      description:
        'Needs `audit.read` there (404 otherwise). Newest first; any query parameter besides one `limit` and one `cursor` is 400.',
      query: {
        limit: {
          description: 'Page size, 1..100 (default 50).',
          schema: { type: 'string', pattern: '^[1-9][0-9]{0,2}$' },
        },
        cursor: {
          description: 'The previous page’s `nextCursor`, unchanged.',
          schema: { type: 'string', minLength: 1 },
        },
      },
      responses: { 200: { description: 'The page', body: ref('AuditEventPage') } },
      errors: ['not_found'],
    },
    handle: async ({ exchange, kernel, caller, uuid, services }) => {
      const { context } = caller();
      const organizationId = uuid('orgId');
      const query = parseAuditQuery(exchange.rawQuery, kernel.config.limits.auditPageSizeDefault);
      if (query === undefined) throw new IdentityError('request_invalid');
      const page = await services.organizations.auditPage(context, organizationId, query);
      respondIdentityJson(exchange, 200, {
        events: page.events.map(auditEventView),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      });
    },
  }),
  route({
    method: 'GET',
    path: '/identity/v1/organizations/:orgId/audit-events/export',
    callers: { user: true },
    doc: {
      tag: 'audit',
      summary: 'Export an organization’s audit events (NDJSON or CSV, streamed)',
      description:
        'Needs `audit.read` there (404 otherwise). Newest first, the safe view of route 29, streamed in keyset order with ' +
        'at most `limits.auditExportMaxEvents` events per response. Any query parameter besides one `format` and one ' +
        '`cursor` is 400. The last line is a trailer: NDJSON `{"trailer":{"cursor":"…"|null,"complete":true|false}}`, ' +
        'CSV `# cursor=… complete=true|false`; passing its cursor back continues with the older events. A response ' +
        'without a trailer is incomplete (it failed midway): start again, or from an earlier trailer’s cursor. A store ' +
        'failure before the first event is written is the usual 503.',
      query: {
        format: {
          description: '`ndjson` or `csv` (required).',
          schema: { type: 'string', enum: ['ndjson', 'csv'] },
        },
        cursor: {
          description: 'A trailer’s `cursor` or route 29’s `nextCursor`, unchanged: the export starts after it.',
          schema: { type: 'string', minLength: 1 },
        },
      },
      responses: {
        200: {
          description: 'The events, then the trailer line',
          contentType: ['application/x-ndjson', 'text/csv'],
          body: { type: 'string' },
          headers: {
            'Content-Disposition': {
              description: '`attachment; filename="audit-<orgId>-<yyyymmddThhmmssZ>.<ndjson|csv>"`',
              required: true,
            },
          },
        },
      },
      errors: ['not_found'],
    },
    handle: async ({ exchange, kernel, caller, uuid, services, at }) => {
      const { context } = caller();
      const organizationId = uuid('orgId');
      const query = parseAuditExportQuery(exchange.rawQuery);
      if (query === undefined) throw new IdentityError('request_invalid');
      const source = services.organizations.auditExport(context, organizationId, query.cursor);
      const encoder = auditExportEncoder(query.format);
      const stamp = at.toISOString().replace(/[-:]|\.\d{3}/g, '');
      const open = () =>
        respondIdentityStream(exchange, 200, {
          'content-type': encoder.contentType,
          'content-disposition': `attachment; filename="audit-${organizationId}-${stamp}.${encoder.extension}"`,
          'x-content-type-options': 'nosniff',
        });
      await writeAuditExport(open, source, encoder, kernel.config.limits.auditExportMaxEvents);
    },
  }),
];
