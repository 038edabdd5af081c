import type { Exchange, Middleware, Router } from '@tessera/web';
import type { IdentityContext } from '../../context/identity-context.js';
import { IdentityError } from '../../errors/identity.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import type { AdministrativeRecovery } from '../../recovery/admin-recovery.port.js';
import {
  digestRecoveryTicket,
  digestRecoveryTicketUser,
  hmacDigest,
  parseRecoveryTicket,
} from '../../recovery/recovery-tokens.js';
import type { ChallengeRecord } from '../../store/identity-records.js';
import { decodeBase64Url, encodeBase64Url } from '../../tokens/base64url.codec.js';
import { timingSafeEqual } from '../../tokens/keyed-digest.crypto.js';
import { generateUuidV7 } from '../../tokens/uuid-v7.generator.js';
import { respondIdentityJson } from '../identity-response.js';
import { ticketView } from '../identity-views.js';
import { isUuidV7 } from '../request-fields.js';
import { callerGate, rateLimited, readIdentityBody, requestTime, requireContext, storeRead } from '../route-kit.js';
import { requireStep } from './step-up.js';
import { mintSession, respondSessionCreated } from './session-grant.js';

const USER = callerGate({ user: true });
/** ANON route: anonymous or a full session; a restricted session is refused (identity-http §2 stage 7). */
const ANYONE = callerGate({ anonymous: true, user: true });
const ISSUE_BODY = { userId: { kind: 'uuidv7' } } as const;
const REDEEM_BODY = {
  token: { kind: 'text', min: 20, max: 512 },
  deviceLabel: { kind: 'text', min: 1, max: 200, optional: true },
  devicePlatform: { kind: 'text', min: 1, max: 200, optional: true },
} as const;

/**
 * Routes 18–20 (identity-http §4.1, identity-model §5.6): administrative recovery, 404 unless both a
 * platform authorizer and a notification sink are configured. Tickets are created inactive,
 * handed only to the sink, activated after durable delivery (a failed delivery cancels the ticket
 * and answers 503), single use, 15 minutes; every step is audited.
 *
 * @example
 * adminRecoveryRoutes(kernel, router);
 */
export function adminRecoveryRoutes(kernel: IdentityKernel, router: Router): Router {
  const configured: Middleware = async (_exchange, next) => {
    if (kernel.adminRecovery === undefined) throw new IdentityError('not_found');
    await next();
  };
  const feature = (): AdministrativeRecovery => kernel.adminRecovery!;
  const event = (
    exchange: Exchange,
    at: Date,
    actorUserId: string | null,
    action: string,
    ticket: string,
    outcome?: 'succeeded' | 'denied' | 'failed',
    reasonCode?: string,
  ) =>
    kernel.audit.event(exchange, at, {
      actor: actorUserId === null ? { type: 'anonymous' } : { type: 'user', userId: actorUserId },
      action,
      target: { type: 'challenge', id: ticket },
      ...(outcome ? { outcome } : {}),
      ...(reasonCode ? { reasonCode } : {}),
    });
  const authorize = async (context: IdentityContext, targetUserId: string) => {
    let allowed: boolean;
    try {
      allowed = await feature().authorizer.authorizeRecovery({ actorUserId: context.principal.id, targetUserId });
    } catch (cause) {
      throw new IdentityError('service_unavailable', { cause });
    }
    if (allowed !== true) throw new IdentityError('not_found');
  };

  router.post('/identity/v1/recovery/admin/tickets', configured, USER, async (exchange) => {
    const context = requireContext(exchange);
    const body = await readIdentityBody(kernel, exchange, ISSUE_BODY);
    await authorize(context, body.userId);
    requireStep(kernel, context);
    const target = await storeRead(() => kernel.store.findUser(body.userId));
    if (target === null || target.state !== 'active') throw new IdentityError('not_found');
    const at = requestTime(exchange);
    const actor = context.principal.id;
    const ticketId = generateUuidV7(kernel.runtime.clock, kernel.runtime.random);
    const secret = Buffer.from(kernel.runtime.random.bytes(32));
    const pepper = kernel.keys.recoveryPepper.current;
    const expiresAt = new Date(at.getTime() + kernel.config.lifetimes.adminRecoveryTicketSeconds * 1000);
    const created = await kernel.store.createChallenge({
      challenge: {
        id: ticketId,
        purpose: 'account_recovery',
        challengeDigest: hmacDigest(digestRecoveryTicket(pepper.key, { ticketId, secret }), pepper.version),
        bindingDigest: null,
        payloadDigest: null,
        userBindingDigest: encodeBase64Url(digestRecoveryTicketUser(pepper.key, ticketId, target.id)),
        userId: target.id,
        organizationId: null,
        expiresAt,
      },
      at,
      audits: [event(exchange, at, actor, 'recovery.admin_ticket_created', ticketId)],
    });
    if (!created.ok) throw new IdentityError('service_unavailable');
    const token = `${ticketId}.${encodeBase64Url(secret)}`;
    // A sink that throws, rejects or returns anything but a settled promise counts as a failed delivery.
    const delivered = await Promise.resolve()
      .then(() => feature().sink.deliverRecoveryTicket({ ticketId, userId: target.id, token, expiresAt }))
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
          event(exchange, at, actor, 'recovery.admin_ticket_delivered', ticketId, 'failed', 'delivery_failed'),
          event(exchange, at, actor, 'recovery.admin_ticket_cancelled', ticketId, 'succeeded', 'delivery_failed'),
        ],
      });
      throw new IdentityError('service_unavailable');
    }
    const activated = await kernel.store.activateAdministrativeRecoveryTicket({
      ticketId,
      expectedVersion: created.value.version,
      at,
      audits: [event(exchange, at, actor, 'recovery.admin_ticket_delivered', ticketId)],
    });
    if (!activated.ok) throw new IdentityError('service_unavailable');
    respondIdentityJson(exchange, 201, ticketView(activated.value, at));
  });

  router.delete('/identity/v1/recovery/admin/tickets/:ticketId', configured, USER, async (exchange) => {
    const context = requireContext(exchange);
    const ticketId = exchange.pathParam('ticketId')!;
    if (!isUuidV7(ticketId)) throw new IdentityError('request_invalid');
    const ticket = await storeRead(() => kernel.store.findChallenge(ticketId));
    if (ticket === null || ticket.purpose !== 'account_recovery' || ticket.userId === null)
      throw new IdentityError('not_found');
    await authorize(context, ticket.userId);
    requireStep(kernel, context);
    const at = requestTime(exchange);
    if (ticket.state !== 'pending' || at >= ticket.expiresAt) throw new IdentityError('not_found');
    const result = await kernel.store.consumeChallenge({
      challengeId: ticket.id,
      expectedVersion: ticket.version,
      outcome: 'failed',
      failureReason: 'administrator_cancelled',
      at,
      audits: [
        event(
          exchange,
          at,
          context.principal.id,
          'recovery.admin_ticket_cancelled',
          ticket.id,
          'succeeded',
          'administrator_cancelled',
        ),
      ],
    });
    if (!result.ok) throw new IdentityError(result.code === 'unavailable' ? 'service_unavailable' : 'conflict');
    respondIdentityJson(exchange, 200, ticketView(result.value, at));
  });

  router.post(
    '/identity/v1/recovery/admin/tickets/redeem',
    configured,
    ANYONE,
    rateLimited(kernel, 'admin_ticket_redeem', 'peer'),
    async (exchange) => {
      const body = await readIdentityBody(kernel, exchange, REDEEM_BODY);
      const at = requestTime(exchange);
      const parts = parseRecoveryTicket(body.token);
      if (parts === undefined) throw new IdentityError('invalid_credentials');
      const ticket = await storeRead(() => kernel.store.findChallenge(parts.ticketId));
      if (ticket === null || !ticketMatches(kernel, ticket, parts.secret))
        throw new IdentityError('invalid_credentials');
      if (ticket.state !== 'pending' || ticket.activatedAt === null) throw new IdentityError('invalid_credentials');
      const userId = ticket.userId!;
      if (at >= ticket.expiresAt) {
        await kernel.store.consumeChallenge({
          challengeId: ticket.id,
          expectedVersion: ticket.version,
          outcome: 'expired',
          failureReason: 'ticket_expired',
          at,
          audits: [event(exchange, at, null, 'recovery.admin_ticket_expired', ticket.id, 'denied', 'ticket_expired')],
        });
        throw new IdentityError('invalid_credentials');
      }
      const lifetime = kernel.config.lifetimes.restrictedSessionSeconds;
      const issued = mintSession(kernel, {
        userId,
        assurance: 'recovery',
        authenticationMethod: 'administrative_recovery',
        authenticatedAt: at,
        lifetimes: { idleSeconds: lifetime, absoluteSeconds: lifetime },
        ...(body.deviceLabel === undefined ? {} : { label: body.deviceLabel }),
        ...(body.devicePlatform === undefined ? {} : { platform: body.devicePlatform }),
      });
      const result = await kernel.store.redeemAdministrativeRecoveryTicket({
        ticketId: ticket.id,
        expectedVersion: ticket.version,
        at,
        session: issued.session,
        audits: [event(exchange, at, userId, 'recovery.admin_ticket_used', ticket.id)],
      });
      if (!result.ok) {
        const unavailable = result.code === 'unavailable' || result.code === 'internal';
        throw new IdentityError(unavailable ? 'service_unavailable' : 'invalid_credentials');
      }
      respondSessionCreated(kernel, exchange, issued, result.value.session);
    },
  );
  return router;
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
