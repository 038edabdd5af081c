/** Row builders of the operational tables: audit events and rate-limit buckets. */
import { ScimRows } from './identity-rows.scim.js';
import { b64, uuidV7, type Row } from './identity-rows.values.js';

/** Builders of the audit trail and the rate-limit counters. */
export class OperationsRows extends ScimRows {
  /** A system event without request facts. */
  auditEvents(over: Row = {}): Promise<Row> {
    return this.insert('audit_events', {
      id: uuidV7(),
      actor_type: 'system',
      actor_user_id: null,
      actor_service_identity_id: null,
      organization_id: null,
      action: 'identity.bootstrapped',
      target_type: null,
      target_id: null,
      outcome: 'succeeded',
      reason_code: null,
      request_id: null,
      request_method: null,
      request_path: null,
      request_user_agent: null,
      request_client_ip_digest: null,
      request_trusted_proxy: null,
      occurred_at: this.now,
      ...over,
    });
  }

  /** Request facts of an audit event, pseudonyms included. */
  auditRequest(over: Row = {}): Row {
    return {
      request_id: `req_${b64(16)}`,
      request_method: 'POST',
      request_path: '/identity/v1/logout',
      request_user_agent: `v1.${b64()}`,
      request_client_ip_digest: `v1.${b64()}`,
      request_trusted_proxy: false,
      ...over,
    };
  }

  rateLimitBuckets(over: Row = {}): Promise<Row> {
    return this.insert('rate_limit_buckets', {
      bucket_key: `bootstrap:${b64()}`,
      window_start: this.now,
      window_seconds: 900,
      count: 1,
      ...over,
    });
  }
}
