/** Constraint cases of the operational tables: audit events and rate-limit buckets. */
import {
  check,
  foreign,
  long,
  outsider,
  unique,
  version,
  type ConstraintCase,
} from './identity-constraint-cases.builders.js';
import { uuidV7 } from './identity-rows.fixture.js';

export const auditEvents: ConstraintCase[] = [
  unique('audit_events_pkey', 'audit_events', (first) => ({ id: first.id })),
  foreign('audit_events_organization_id_foreign', 'audit_events', { organization_id: uuidV7() }),
  outsider('audit_events', 'actor_type', 'robot'),
  check('audit_events_actor_check', 'audit_events', { actor_type: 'user' }),
  check('audit_events_action_check', 'audit_events', { action: 'Session Revoked' }),
  outsider('audit_events', 'target_type', 'device_token', { target_id: uuidV7() }),
  check('audit_events_target_check', 'audit_events', { target_type: 'session' }),
  check('audit_events_target_id_check', 'audit_events', { target_type: 'session', target_id: '' }),
  outsider('audit_events', 'outcome', 'partial'),
  check('audit_events_reason_code_check', 'audit_events', { outcome: 'denied', reason_code: long(201) }),
  check('audit_events_request_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_trusted_proxy: null })),
  ),
  check('audit_events_request_id_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_id: 'req id with spaces' })),
  ),
  check('audit_events_request_method_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_method: '' })),
  ),
  check('audit_events_request_path_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_path: long(4097) })),
  ),
  check('audit_events_request_user_agent_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_user_agent: 'Mozilla/5.0' })),
  ),
  check('audit_events_request_client_ip_digest_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_client_ip_digest: '192.0.2.1' })),
  ),
];

export const rateLimitBuckets: ConstraintCase[] = [
  unique('rate_limit_buckets_pkey', 'rate_limit_buckets', (first) => ({ bucket_key: first.bucket_key })),
  check('rate_limit_buckets_bucket_key_check', 'rate_limit_buckets', { bucket_key: 'bootstrap:192.0.2.1' }),
  check('rate_limit_buckets_window_seconds_check', 'rate_limit_buckets', { window_seconds: 86401 }),
  check('rate_limit_buckets_count_check', 'rate_limit_buckets', { count: -1 }),
  version('rate_limit_buckets'),
];
