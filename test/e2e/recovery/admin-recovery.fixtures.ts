import { expect } from '@jest/globals';
import type { Response } from 'supertest';
import type { IdentityModuleOptions } from '@tessera/identity';
import type { TestRow } from '@tessera/identity-testing';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { passkeyOwner, post, type TestSession } from '../../support/passkey-client.js';
import { rowsOf, unsafe } from './recovery-e2e.support.js';

/** Route 18 (issue) and, with `/{ticketId}`, route 19 (cancel). */
export const TICKETS = '/identity/v1/recovery/admin/tickets';
/** Route 20. */
export const REDEEM = '/identity/v1/recovery/admin/tickets/redeem';

type Sink = NonNullable<IdentityModuleOptions['notificationSink']>;
type Authorizer = NonNullable<IdentityModuleOptions['platformAuthorizer']>;
/** What the notification sink is handed. */
export type Delivery = Parameters<NonNullable<Sink['deliverRecoveryTicket']>>[0];

/** A platform authorizer that allows the listed actors and records every question. */
export class TestAuthorizer implements Authorizer {
  readonly allowed = new Set<string>();
  readonly calls: { actorUserId: string; targetUserId: string }[] = [];
  authorizeRecovery(input: { actorUserId: string; targetUserId: string }): boolean {
    this.calls.push(input);
    return this.allowed.has(input.actorUserId);
  }
}

/** A notification sink that records deliveries; it can fail (throw or reject) or act mid-delivery. */
export class TestSink implements Sink {
  readonly deliveries: Delivery[] = [];
  mode: 'deliver' | 'throw' | 'reject' = 'deliver';
  duringDelivery?: (delivery: Delivery) => Promise<void>;
  deliverRecoveryTicket(delivery: Delivery): Promise<void> {
    this.deliveries.push(delivery);
    if (this.mode === 'throw') throw new Error('mail relay refused the message');
    if (this.mode === 'reject') return Promise.reject(new Error('mail relay timed out'));
    return this.duringDelivery?.(delivery) ?? Promise.resolve();
  }
}

/**
 * An app with administrative recovery enabled (recording authorizer and sink, redeem limit raised),
 * a bootstrapped owner with a fresh passkey session, and a target user who is a viewer in the
 * owner's organization. Every ticket-route response is kept for the token-leak scan.
 */
export class AdminRecoveryWorld {
  readonly responses: Response[] = [];

  private constructor(
    readonly identity: IdentityTestApp,
    readonly authorizer: TestAuthorizer,
    readonly sink: TestSink,
    readonly owner: Awaited<ReturnType<typeof passkeyOwner>>,
    readonly targetUserId: string,
  ) {}

  static async boot(): Promise<AdminRecoveryWorld> {
    const authorizer = new TestAuthorizer();
    const sink = new TestSink();
    const identity = await bootIdentityApp(
      { rateLimits: { admin_ticket_redeem: { limit: 1000, windowSeconds: 60 } } },
      undefined,
      { platformAuthorizer: authorizer, notificationSink: sink },
    );
    const owner = await passkeyOwner(identity);
    const rows = rowsOf(identity);
    const [membership] = await rows.sql('select organization_id from tessera_identity.memberships where user_id = ?', [
      owner.session.userId,
    ]);
    const targetUserId = await rows.user({ at: identity.clock.now() });
    await rows.membership(String(membership!['organization_id']), targetUserId, { role: 'viewer' });
    return new AdminRecoveryWorld(identity, authorizer, sink, owner, targetUserId);
  }

  close(): Promise<void> {
    return this.identity.close();
  }

  issue(session: TestSession, userId = this.targetUserId): Promise<Response> {
    return this.track(unsafe(this.identity, 'post', TICKETS, session).send({ userId }));
  }

  cancel(session: TestSession, ticketId: string): Promise<Response> {
    return this.track(unsafe(this.identity, 'delete', `${TICKETS}/${ticketId}`, session));
  }

  redeem(token: string, extra: Record<string, string> = {}): Promise<Response> {
    return this.track(post(this.identity, REDEEM).send({ token, ...extra }));
  }

  /** The ticket's challenge row, plus `dump`: the whole row as JSON text. */
  async ticketRow(id: string): Promise<TestRow> {
    const [row] = await rowsOf(this.identity).sql(
      `select purpose, state, user_id, activated_at, expires_at, failure_reason, challenge_digest_algorithm,
              row_to_json(c)::text as dump
         from tessera_identity.challenges c where id = ?`,
      [id],
    );
    return row!;
  }

  /** Issues a delivered ticket as the authorized owner (fresh passkey session); its view and token. */
  async deliveredTicket(): Promise<{ ticket: { id: string }; token: string }> {
    this.authorizer.allowed.add(this.owner.session.userId);
    const res = await this.issue(this.owner.session);
    if (res.status !== 201) throw new Error(`issue failed: ${res.status} ${res.text}`);
    return { ticket: res.body as { id: string }, token: this.sink.deliveries.at(-1)!.token };
  }

  /** No delivered token (nor its secret half) in any kept response's headers or body. */
  expectNoTokenOverHttp(): void {
    const secrets = this.sink.deliveries.flatMap((d) => [d.token, d.token.split('.')[1]!]);
    expect(secrets.length).toBeGreaterThan(0);
    expect(this.responses.length).toBeGreaterThan(0);
    for (const res of this.responses) {
      const seen = `${JSON.stringify(res.headers)}\n${res.text}`;
      for (const secret of secrets) expect(seen).not.toContain(secret);
    }
  }

  private async track(pending: PromiseLike<Response>): Promise<Response> {
    const res = await pending;
    this.responses.push(res);
    return res;
  }
}
