import type { Exchange } from '@tessera/web';
import type { IdentityContext } from '../../context/identity-context.js';
import { IdentityError } from '../../errors/identity.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import type { InvitationRecord } from '../../store/identity-records.js';
import { encodeBase64Url } from '../../tokens/base64url.codec.js';
import { digestInvitationToken, parseInvitationToken } from '../../tokens/secret-token.format.js';
import { generateUuidV7 } from '../../tokens/uuid-v7.generator.js';
import { membershipView } from '../identity-views.js';
import { respondIdentityJson } from '../identity-response.js';
import { requestTime, storeRead } from '../route-kit.js';

/**
 * Route 33 after the body was decoded: finds the invitation by the token's keyed digest (current
 * recovery pepper first, then previous versions) and has the store accept it for the caller in
 * one transaction (identity-model §5.4). Every token, expiry, state or email problem — and an
 * existing membership in that organization — is the same 401 `invalid_credentials` with nothing
 * written; a store outage is 503.
 *
 * @example
 * await acceptInvitation(kernel, exchange, context, body.token);
 */
export async function acceptInvitation(
  kernel: IdentityKernel,
  exchange: Exchange,
  context: IdentityContext,
  token: string,
): Promise<void> {
  const secret = parseInvitationToken(token);
  if (secret === undefined) throw new IdentityError('invalid_credentials');
  const at = requestTime(exchange);
  const invitation = await findByToken(kernel, secret);
  if (invitation === null || invitation.state !== 'pending' || at.getTime() >= invitation.expiresAt.getTime())
    throw new IdentityError('invalid_credentials');
  const userId = context.principal.id;
  const membershipId = generateUuidV7(kernel.runtime.clock, kernel.runtime.random);
  const actor = { type: 'user', userId } as const;
  const organizationId = invitation.organizationId;
  const result = await kernel.store.createMembership({
    membership: { id: membershipId, organizationId, userId, role: invitation.role },
    invitation: { invitationId: invitation.id, expectedVersion: invitation.version },
    at,
    audits: [
      kernel.audit.event(exchange, at, {
        actor,
        action: 'invitation.accepted',
        organizationId,
        target: { type: 'invitation', id: invitation.id },
      }),
      kernel.audit.event(exchange, at, {
        actor,
        action: 'membership.created',
        organizationId,
        target: { type: 'membership', id: membershipId },
      }),
    ],
  });
  if (!result.ok) {
    const outage = result.code === 'unavailable' || result.code === 'internal';
    throw new IdentityError(outage ? 'service_unavailable' : 'invalid_credentials');
  }
  respondIdentityJson(exchange, 200, membershipView(result.value.membership));
}

async function findByToken(kernel: IdentityKernel, secret: Uint8Array): Promise<InvitationRecord | null> {
  const ring = kernel.keys.recoveryPepper;
  for (const pepper of [ring.current, ...ring.previous]) {
    const invitation = await storeRead(() =>
      kernel.store.findInvitationByTokenDigest({
        algorithm: 'hmac-sha256',
        encoded: encodeBase64Url(digestInvitationToken(pepper.key, secret)),
        keyVersion: pepper.version,
      }),
    );
    if (invitation !== null) return invitation;
  }
  return null;
}
