import type { RequestFacts } from '../context/identity-call.js';
import { IDENTITY_FIXED_LIFETIMES } from '../config/identity-bounds.config.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { storeRead } from '../http/route-kit.js';
import { credentialRefusal, type IdentitySessions, type MintedSession } from '../sessions/session.service.js';
import type { InvitationRecord, MembershipRecord, UserRecord } from '../store/identity-records.js';
import { digestInvitationToken, parseInvitationToken } from '../tokens/secret-token.format.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { storedKeyedDigest } from '../tokens/keyed-digest.crypto.js';

/** An enrolled account: the new user, its membership and its restricted session. */
export interface InvitationEnrollment extends MintedSession {
  readonly user: UserRecord;
  readonly membership: MembershipRecord;
}

/**
 * The invitation a token names, by its keyed digest under the current recovery pepper first, then
 * previous versions (identity-model §2 key rings); `null` when none.
 *
 * @example
 * const invitation = await findInvitationByToken(kernel, secret);
 */
export async function findInvitationByToken(
  kernel: IdentityKernel,
  secret: Uint8Array,
): Promise<InvitationRecord | null> {
  const ring = kernel.keys.recoveryPepper;
  for (const pepper of [ring.current, ...ring.previous]) {
    const invitation = await storeRead(() =>
      kernel.store.findInvitationByTokenDigest(
        storedKeyedDigest(digestInvitationToken(pepper.key, secret), pepper.version),
      ),
    );
    if (invitation !== null) return invitation;
  }
  return null;
}

/**
 * Route 34 (identity-model §5.4): one atomic store command creates the user, accepts the
 * invitation, creates the membership and a 15-minute restricted session. A disabled registration
 * policy, any token problem or a lost race is 401 `invalid_credentials`; an outage 503.
 *
 * @example
 * const enrolled = await enrollInvitation(kernel, sessions, { exchange, at }, token, 'Ada');
 */
export async function enrollInvitation(
  kernel: IdentityKernel,
  sessions: IdentitySessions,
  facts: RequestFacts,
  token: string,
  displayName: string,
): Promise<InvitationEnrollment> {
  const { at } = facts;
  const policy = kernel.config.registrationPolicy;
  const secret = parseInvitationToken(token);
  if (policy === 'disabled' || secret === undefined) throw new IdentityError('invalid_credentials');
  const id = () => generateUuidV7(kernel.runtime.clock, kernel.runtime.random);
  const userId = id();
  const membershipId = id();
  const issued = sessions.mintRestricted(
    userId,
    'invitation',
    at,
    {},
    IDENTITY_FIXED_LIFETIMES.invitationEnrollmentSessionSeconds,
  );
  const audits = (invitation: InvitationRecord) => enrollmentAudits(kernel, facts, invitation, userId, membershipId);
  const ring = kernel.keys.recoveryPepper;
  let result;
  // Try the current pepper version first, then previous ones (identity-model §2 key rings).
  for (const pepper of [ring.current, ...ring.previous]) {
    result = await kernel.store.enrollInvitation({
      tokenDigest: storedKeyedDigest(digestInvitationToken(pepper.key, secret), pepper.version),
      at,
      user: { id: userId, primaryEmail: null, displayName },
      membershipId,
      session: issued.session,
      requireIssuingUser: policy === 'admin_only',
      audits,
    });
    if (result.ok || result.code !== 'not_found') break;
  }
  if (result === undefined || !result.ok) throw credentialRefusal(result?.code);
  const { user, membership, session } = result.value;
  return { user, membership, issued, session };
}

function enrollmentAudits(
  kernel: IdentityKernel,
  facts: RequestFacts,
  invitation: InvitationRecord,
  userId: string,
  membershipId: string,
) {
  const actor = { type: 'user', userId } as const;
  const organizationId = invitation.organizationId;
  const event = (action: string, target: { type: string; id: string }, reasonCode?: string) =>
    kernel.audit.event(facts.exchange, facts.at, {
      actor,
      action,
      organizationId,
      target,
      ...(reasonCode === undefined ? {} : { reasonCode }),
    });
  return [
    event('user.created', { type: 'user', id: userId }, 'invitation'),
    event('invitation.accepted', { type: 'invitation', id: invitation.id }),
    event('membership.created', { type: 'membership', id: membershipId }),
  ];
}
