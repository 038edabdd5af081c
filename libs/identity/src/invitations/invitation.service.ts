import { Inject, Injectable } from '@nestjs/common';
import type { Exchange } from '@tessera/web';
import { IdentityError } from '../errors/identity.errors.js';
import { mapStoreError } from '../errors/store.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { IDENTITY_KERNEL } from '../identity.tokens.js';
import { ROLE_RANK } from '../organizations/capabilities.js';
import type { InvitationRecord, OrganizationRole } from '../store/identity-records.js';
import { digestInvitationToken, generateInvitationToken } from '../tokens/secret-token.format.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { codePointLength } from '../http/request-fields.js';
import { getRequestTime } from '../http/identity-exchange.js';
import { storedKeyedDigest } from '../tokens/keyed-digest.crypto.js';
import { deliverInvitation, enrollUrl } from './invitation-delivery.js';
import { describeInvitation } from './invitation-preview.js';

/** Input of {@link IdentityInvitations.create}. */
export interface CreateInvitationInput {
  readonly organizationId: string;
  readonly email: string;
  readonly role: OrganizationRole;
  /** The issuing user; `null` for a system-issued invitation (refused for enrollment under `admin_only`). */
  readonly invitedByUserId: string | null;
}

/**
 * Invitation creation as a service (route 31 and the demo's `invite` command): a pending
 * invitation expiring after the configured lifetime (7 days by default), its token shown once,
 * only its keyed digest stored, and `invitation.created` audited in the same transaction. A
 * pending invitation for the same organization and lower-cased email → 409 `conflict`.
 *
 * @example
 * const { invitation, token, delivered } = await invitations.create({ organizationId, email: 'ada@example.com', role: 'viewer', invitedByUserId });
 */
@Injectable()
export class IdentityInvitations {
  constructor(@Inject(IDENTITY_KERNEL) private readonly kernel: IdentityKernel) {}

  /**
   * Creates the invitation; from a route, pass its `exchange` so that the request's captured
   * instant and request facts go into the invitation and its audit event. With a
   * `notificationSink.deliverInvitation`, the enrolment link is delivered through it: `delivered`
   * is then `true` and `token` is answered only with `invitations.returnTokenWithSink`. A failed or
   * timed-out delivery revokes the invitation (`invitation.revoked`, reason `delivery_failed`) and
   * throws 503 `service_unavailable`, so nothing half-made stays pending.
   */
  async create(
    input: CreateInvitationInput,
    exchange?: Exchange,
  ): Promise<{ invitation: InvitationRecord; token?: string; delivered: boolean }> {
    const email = input.email;
    if (
      codePointLength(email) < 3 ||
      codePointLength(email) > 320 ||
      !email.includes('@') ||
      !Object.hasOwn(ROLE_RANK, input.role)
    ) {
      throw new IdentityError('request_invalid');
    }
    const { runtime, keys, config, invitationDelivery } = this.kernel;
    const at = (exchange === undefined ? undefined : getRequestTime(exchange)) ?? runtime.clock.now();
    const token = generateInvitationToken(runtime.random);
    const pepper = keys.recoveryPepper.current;
    const id = generateUuidV7(runtime.clock, runtime.random);
    const actor =
      input.invitedByUserId === null
        ? ({ type: 'system' } as const)
        : ({ type: 'user', userId: input.invitedByUserId } as const);
    const result = await this.kernel.store.createInvitation({
      invitation: {
        id,
        organizationId: input.organizationId,
        email,
        role: input.role,
        tokenDigest: storedKeyedDigest(digestInvitationToken(pepper.key, token.bytes), pepper.version),
        invitedByUserId: input.invitedByUserId,
        expiresAt: new Date(at.getTime() + config.lifetimes.invitationSeconds * 1000),
      },
      at,
      audit: this.kernel.audit.event(exchange, at, {
        actor,
        action: 'invitation.created',
        organizationId: input.organizationId,
        target: { type: 'invitation', id },
      }),
    });
    if (!result.ok) throw new IdentityError(mapStoreError(result.code, 'organization'));
    const invitation = result.value;
    if (invitationDelivery === undefined) return { invitation, token: token.token, delivered: false };
    const names = await describeInvitation(this.kernel, invitation).catch(() => undefined);
    const delivered =
      names !== undefined &&
      (await deliverInvitation(invitationDelivery, {
        invitationId: invitation.id,
        organizationId: invitation.organizationId,
        email: invitation.email,
        organizationName: names.organizationName,
        inviterDisplayName: names.inviterDisplayName,
        role: invitation.role,
        enrollUrl: enrollUrl(invitationDelivery, token.token),
        expiresAt: invitation.expiresAt,
      }));
    const audit = (action: string, reasonCode?: string) =>
      this.kernel.audit.event(exchange, at, {
        actor,
        action,
        organizationId: invitation.organizationId,
        target: { type: 'invitation', id },
        ...(reasonCode === undefined ? {} : { reasonCode }),
      });
    if (!delivered) {
      await this.kernel.store.mutateInvitation({
        invitationId: id,
        organizationId: invitation.organizationId,
        expectedVersion: invitation.version,
        actorUserId: input.invitedByUserId,
        change: { kind: 'revoke' },
        at,
        audit: audit('invitation.revoked', 'delivery_failed'),
      });
      throw new IdentityError('service_unavailable');
    }
    await this.kernel.store.appendAuditEvent(audit('invitation.delivered'));
    return { invitation, delivered: true, ...(invitationDelivery.returnToken ? { token: token.token } : {}) };
  }
}
