import { auditEventView } from '../../audit/audit-event.view.js';
import { parseAuditQuery } from '../../audit/audit-query.js';
import { IdentityError } from '../../errors/identity.errors.js';
import { respondIdentityJson } from '../identity-response.js';
import { route, type IdentityRouteTable } from './route-table.js';
import { ref } from './route-doc.js';

/**
 * Route 29 (identity-http §4.4): one page of the organization's audit stream, newest first by the
 * descending keyset (`occurredAt`, `id`), for a caller with `audit.read` there. Stage 9 rejects
 * any query but one canonical `limit` and one well-formed `cursor` (400); stage 10 answers the same
 * 404 for a missing capability, another tenant and an unknown organization; only then is a cursor
 * of another organization refused (400). `nextCursor` is present only when older events exist.
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
];
