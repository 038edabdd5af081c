import type { AuditEventRecord } from '../store/identity-records.js';
import { formatTimestamp } from '../tokens/timestamp.format.js';

/**
 * `AuditEventView` (identity-model §8.1): exactly the safe fields — never the user-agent or client
 * pseudonym, payloads, digests or secrets. Each field is copied by name, so nothing stored beyond
 * them can leak into the view.
 *
 * @example
 * respondIdentityJson(exchange, 200, { events: page.events.map(auditEventView) });
 */
export function auditEventView(event: AuditEventRecord) {
  const actor = event.actor;
  const request = event.request;
  return {
    id: event.id,
    actor:
      actor.type === 'user'
        ? { type: actor.type, userId: actor.userId }
        : actor.type === 'service'
          ? { type: actor.type, serviceIdentityId: actor.serviceIdentityId }
          : { type: actor.type },
    organizationId: event.organizationId,
    action: event.action,
    ...(event.target === null ? {} : { target: { type: event.target.type, id: event.target.id } }),
    outcome: event.outcome,
    ...(event.reasonCode === null ? {} : { reasonCode: event.reasonCode }),
    ...(request === null
      ? {}
      : {
          request: {
            requestId: request.requestId,
            method: request.method,
            path: request.path,
            trustedProxy: request.trustedProxy,
          },
        }),
    occurredAt: formatTimestamp(event.occurredAt),
  };
}
