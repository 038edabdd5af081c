import type { IdentityCall, RequestFacts } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { AdministrativeRecovery } from './admin-recovery.port.js';
import { digestRecoveryTicket, digestRecoveryTicketUser, parseRecoveryTicket } from './recovery-tokens.js';
import type { ChallengeRecord } from '../store/identity-records.js';
import { decodeBase64Url, encodeBase64Url } from '../tokens/base64url.codec.js';
import { storedKeyedDigest, timingSafeEqual } from '../tokens/keyed-digest.crypto.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { storeRead } from '../http/route-kit.js';
import {
  credentialRefusal,
  type IdentitySessions,
  type MintedSession,
  type SessionLabels,
} from '../sessions/session.service.js';

type Outcome = 'succeeded' | 'denied' | 'failed';

/**
 * Administrative recovery (routes 18–20, identity-http §4.1, identity-model §5.6), available only
 * when both a platform authorizer and a notification sink are configured. Tickets are created
 * inactive, handed only to the sink, activated after durable delivery (a failed delivery cancels
 * the ticket and answers 503), single use, 15 minutes; every step is audited.
 *
 * @example
 * const ticket = await tickets.issue(call, userId);
 */
export class AdministrativeRecoveryTickets {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
  ) {}

  /** Route 18: authorizer (404), step-up (403), an active target (404), then create → deliver → activate. */
  async issue(call: IdentityCall, userId: string): Promise<ChallengeRecord> {
    const { kernel } = this;
    const { context, at } = call;
    await this.authorize(context, userId);
    this.sessions.requireStep(context);
    const target = await storeRead(() => kernel.store.findUser(userId));
    if (target === null || target.state !== 'active') throw new IdentityError('not_found');
    const actor = context.principal.id;
    const ticketId = generateUuidV7(kernel.runtime.clock, kernel.runtime.random);
    const secret = Buffer.from(kernel.runtime.random.bytes(32));
    const pepper = kernel.keys.recoveryPepper.current;
    const expiresAt = new Date(at.getTime() + kernel.config.lifetimes.adminRecoveryTicketSeconds * 1000);
    const created = await kernel.store.createChallenge({
      challenge: {
        id: ticketId,
        purpose: 'account_recovery',
        challengeDigest: storedKeyedDigest(digestRecoveryTicket(pepper.key, { ticketId, secret }), pepper.version),
        bindingDigest: null,
        payloadDigest: null,
        userBindingDigest: encodeBase64Url(digestRecoveryTicketUser(pepper.key, ticketId, target.id)),
        userId: target.id,
        organizationId: null,
        expiresAt,
      },
      at,
      audits: [this.event(call, actor, 'recovery.admin_ticket_created', ticketId)],
    });
    if (!created.ok) throw new IdentityError('service_unavailable');
    const token = `${ticketId}.${encodeBase64Url(secret)}`;
    // A sink that throws, rejects or returns anything but a settled promise counts as a failed delivery.
    const delivered = await Promise.resolve()
      .then(() => this.feature().sink.deliverRecoveryTicket({ ticketId, userId: target.id, token, expiresAt }))
      .then(
        () => true,
        () => false,
      );
    if (!delivered) {
      await kernel.store.consumeChallenge({
        challengeId: ticketId,
        expectedVersion: created.value.version,
        outcome: 'failed',
        failureReason: 'delivery_failed',
        at,
        audits: [
          this.event(call, actor, 'recovery.admin_ticket_delivered', ticketId, 'failed', 'delivery_failed'),
          this.event(call, actor, 'recovery.admin_ticket_cancelled', ticketId, 'succeeded', 'delivery_failed'),
        ],
      });
      throw new IdentityError('service_unavailable');
    }
    const activated = await kernel.store.activateAdministrativeRecoveryTicket({
      ticketId,
      expectedVersion: created.value.version,
      at,
      audits: [this.event(call, actor, 'recovery.admin_ticket_delivered', ticketId)],
    });
    if (!activated.ok) throw new IdentityError('service_unavailable');
    return activated.value;
  }

  /** Route 19: a pending, unexpired ticket the caller may manage (else 404), cancelled after step-up. */
  async cancel(call: IdentityCall, ticketId: string): Promise<ChallengeRecord> {
    const { context, at } = call;
    const ticket = await storeRead(() => this.kernel.store.findChallenge(ticketId));
    if (ticket === null || ticket.purpose !== 'account_recovery' || ticket.userId === null)
      throw new IdentityError('not_found');
    await this.authorize(context, ticket.userId);
    this.sessions.requireStep(context);
    if (ticket.state !== 'pending' || at >= ticket.expiresAt) throw new IdentityError('not_found');
    const result = await this.kernel.store.consumeChallenge({
      challengeId: ticket.id,
      expectedVersion: ticket.version,
      outcome: 'failed',
      failureReason: 'administrator_cancelled',
      at,
      audits: [
        this.event(
          call,
          context.principal.id,
          'recovery.admin_ticket_cancelled',
          ticket.id,
          'succeeded',
          'administrator_cancelled',
        ),
      ],
    });
    if (!result.ok) throw new IdentityError(result.code === 'unavailable' ? 'service_unavailable' : 'conflict');
    return result.value;
  }

  /** Route 20: one active ticket for one 15-minute restricted session; any token problem is 401. */
  async redeem(facts: RequestFacts, token: string, labels: SessionLabels): Promise<MintedSession> {
    const { kernel } = this;
    const { at } = facts;
    const parts = parseRecoveryTicket(token);
    if (parts === undefined) throw new IdentityError('invalid_credentials');
    const ticket = await storeRead(() => kernel.store.findChallenge(parts.ticketId));
    if (ticket === null || !ticketMatches(kernel, ticket, parts.secret)) throw new IdentityError('invalid_credentials');
    if (ticket.state !== 'pending' || ticket.activatedAt === null) throw new IdentityError('invalid_credentials');
    const userId = ticket.userId!;
    if (at >= ticket.expiresAt) {
      await kernel.store.consumeChallenge({
        challengeId: ticket.id,
        expectedVersion: ticket.version,
        outcome: 'expired',
        failureReason: 'ticket_expired',
        at,
        audits: [this.event(facts, null, 'recovery.admin_ticket_expired', ticket.id, 'denied', 'ticket_expired')],
      });
      throw new IdentityError('invalid_credentials');
    }
    const issued = this.sessions.mintRestricted(userId, 'administrative_recovery', at, labels);
    const result = await kernel.store.redeemAdministrativeRecoveryTicket({
      ticketId: ticket.id,
      expectedVersion: ticket.version,
      at,
      session: issued.session,
      audits: [this.event(facts, userId, 'recovery.admin_ticket_used', ticket.id)],
    });
    if (!result.ok) throw credentialRefusal(result.code);
    return { issued, session: result.value.session };
  }

  private feature(): AdministrativeRecovery {
    const feature = this.kernel.adminRecovery;
    if (feature === undefined) throw new IdentityError('not_found');
    return feature;
  }

  private async authorize(context: IdentityContext, targetUserId: string): Promise<void> {
    const authorizer = this.feature().authorizer;
    let allowed: boolean;
    try {
      allowed = await authorizer.authorizeRecovery({ actorUserId: context.principal.id, targetUserId });
    } catch (cause) {
      throw new IdentityError('service_unavailable', { cause });
    }
    if (allowed !== true) throw new IdentityError('not_found');
  }

  private event(
    facts: RequestFacts,
    actorUserId: string | null,
    action: string,
    ticket: string,
    outcome?: Outcome,
    reasonCode?: string,
  ) {
    return this.kernel.audit.event(facts.exchange, facts.at, {
      actor: actorUserId === null ? { type: 'anonymous' } : { type: 'user', userId: actorUserId },
      action,
      target: { type: 'challenge', id: ticket },
      ...(outcome ? { outcome } : {}),
      ...(reasonCode ? { reasonCode } : {}),
    });
  }
}

/** Constant-time check of the ticket digest and its user binding under the stored key version. */
function ticketMatches(kernel: IdentityKernel, ticket: ChallengeRecord, secret: Buffer): boolean {
  if (ticket.purpose !== 'account_recovery' || ticket.userId === null || ticket.userBindingDigest === null)
    return false;
  const version = ticket.challengeDigest.keyVersion;
  const pepper = version === null ? undefined : kernel.keys.recoveryPepper.byVersion(version);
  const stored = decodeBase64Url(ticket.challengeDigest.encoded, { minBytes: 32, maxBytes: 32 });
  const binding = decodeBase64Url(ticket.userBindingDigest, { minBytes: 32, maxBytes: 32 });
  if (pepper === undefined || stored === undefined || binding === undefined) return false;
  const digestOk = timingSafeEqual(digestRecoveryTicket(pepper.key, { ticketId: ticket.id, secret }), stored);
  const userOk = timingSafeEqual(digestRecoveryTicketUser(pepper.key, ticket.id, ticket.userId), binding);
  return digestOk && userOk;
}
