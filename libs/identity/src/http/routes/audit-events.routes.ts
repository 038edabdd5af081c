import { encodeAuditCursor } from '../../audit/audit-cursor.js';
import { auditEventView } from '../../audit/audit-event.view.js';
import { parseAuditQuery } from '../../audit/audit-query.js';
import { IdentityError } from '../../errors/identity.errors.js';
import { requireOrganizationScope } from '../../organizations/organization-scope.js';
import { respondIdentityJson } from '../identity-response.js';
import { storeRead } from '../route-kit.js';
import { route, type IdentityRouteTable } from './route-table.js';

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
    handle: async ({ exchange, kernel, caller, uuid }) => {
      const { context } = caller();
      const organizationId = uuid('orgId');
      const query = parseAuditQuery(exchange.rawQuery, kernel.config.limits.auditPageSizeDefault);
      if (query === undefined) throw new IdentityError('request_invalid');
      requireOrganizationScope(context, organizationId, 'audit.read');
      const cursor = query.cursor;
      if (cursor !== undefined && cursor.organizationId !== organizationId) throw new IdentityError('request_invalid');
      const page = await storeRead(() =>
        kernel.store.listAuditEventsForOrganization(organizationId, {
          limit: query.limit,
          ...(cursor === undefined ? {} : { after: { occurredAt: cursor.occurredAt, id: cursor.eventId } }),
        }),
      );
      const last = page.events.at(-1);
      respondIdentityJson(exchange, 200, {
        events: page.events.map(auditEventView),
        ...(page.hasMore && last !== undefined
          ? { nextCursor: encodeAuditCursor({ organizationId, occurredAt: last.occurredAt, eventId: last.id }) }
          : {}),
      });
    },
  }),
];
