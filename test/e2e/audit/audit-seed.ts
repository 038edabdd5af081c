import { testBase64Url, testUuidV7 } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { tenantRows } from '../../support/tenant-seed.js';

/** An audit event row to insert directly (the store never exposes a bulk insert). */
export interface SeedEvent {
  readonly id: string;
  readonly occurredAt: Date;
}

/** A new event position at `at` (a UUIDv7 of that instant with random low bits). */
export function seedEvent(at: Date | number): SeedEvent {
  const occurredAt = new Date(at);
  return { id: testUuidV7(occurredAt), occurredAt };
}

/** Newest first by (`occurredAt` desc, `id` desc): the order of the tenant stream. */
export function newestFirst(a: SeedEvent, b: SeedEvent): number {
  const time = b.occurredAt.getTime() - a.occurredAt.getTime();
  return time !== 0 ? time : b.id < a.id ? -1 : b.id > a.id ? 1 : 0;
}

/**
 * Inserts `events` for `organizationId` in one statement, each with pseudonymous request facts
 * (a user-agent pseudonym and a client-IP pseudonym) that the view must never show.
 */
export async function insertEvents(
  identity: IdentityTestApp,
  organizationId: string,
  events: readonly SeedEvent[],
): Promise<void> {
  if (events.length === 0) return;
  const columns = [
    'id',
    'actor_type',
    'organization_id',
    'action',
    'target_type',
    'target_id',
    'outcome',
    'request_id',
    'request_method',
    'request_path',
    'request_user_agent',
    'request_client_ip_digest',
    'request_trusted_proxy',
    'occurred_at',
  ];
  const values: unknown[] = [];
  for (const event of events) {
    values.push(
      event.id,
      'system',
      organizationId,
      'membership.changed',
      'membership',
      event.id,
      'succeeded',
      `req_${testBase64Url(16)}`,
      'PATCH',
      '/identity/v1/test',
      `v1.${testBase64Url()}`,
      `v1.${testBase64Url()}`,
      false,
      event.occurredAt.toISOString(),
    );
  }
  const row = `(${columns.map(() => '?').join(', ')})`;
  await tenantRows(identity).sql(
    `insert into tessera_identity.audit_events (${columns.join(', ')}) values ${events.map(() => row).join(', ')}`,
    values,
  );
}
