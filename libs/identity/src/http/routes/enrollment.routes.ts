import type { Exchange, Router } from '@tessera/web';
import { createHash } from 'node:crypto';
import { IdentityError } from '../../errors/identity.errors.js';
import { mapStoreError } from '../../errors/store.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { IDENTITY_FIXED_LIFETIMES } from '../../config/identity-bounds.config.js';
import type { InvitationRecord } from '../../store/identity-records.js';
import { encodeBase64Url } from '../../tokens/base64url.codec.js';
import { timingSafeEqual } from '../../tokens/keyed-digest.crypto.js';
import { digestInvitationToken, parseInvitationToken } from '../../tokens/secret-token.format.js';
import { generateUuidV7 } from '../../tokens/uuid-v7.generator.js';
import { membershipView, organizationView } from '../identity-views.js';
import { respondIdentityJson } from '../identity-response.js';
import { callerGate, rateLimited, readIdentityBody, requestTime } from '../route-kit.js';
import { grantSession, mintSession } from './session-grant.js';

const ANON = callerGate({ anonymous: true });

const BOOTSTRAP_BODY = {
  secret: { kind: 'text', min: 16, max: 512 },
  displayName: { kind: 'text', min: 1, max: 200 },
  primaryEmail: { kind: 'email' },
  organizationName: { kind: 'text', min: 1, max: 200 },
  organizationSlug: { kind: 'slug' },
} as const;

const ENROLL_BODY = {
  token: { kind: 'text', min: 20, max: 512 },
  displayName: { kind: 'text', min: 1, max: 200 },
} as const;

/**
 * Route 46 (bootstrap) and route 34 (invitation enrollment), both anonymous and rate limited,
 * each one atomic store command that creates a user and a 15-minute restricted session.
 *
 * @example
 * enrollmentRoutes(kernel, router);
 */
export function enrollmentRoutes(kernel: IdentityKernel, router: Router): Router {
  const id = () => generateUuidV7(kernel.runtime.clock, kernel.runtime.random);

  router.post(
    '/identity/v1/bootstrap',
    bootstrapAvailable(kernel),
    ANON,
    rateLimited(kernel, 'bootstrap', 'peer'),
    async (exchange) => {
      const body = await readIdentityBody(kernel, exchange, BOOTSTRAP_BODY);
      const expected = kernel.keys.bootstrapSecret!;
      if (!timingSafeEqual(Buffer.from(body.secret, 'utf8'), expected)) throw new IdentityError('invalid_credentials');
      const at = requestTime(exchange);
      const userId = id();
      const organizationId = id();
      const issued = mintSession(kernel, {
        userId,
        assurance: 'recovery',
        authenticationMethod: 'bootstrap',
        authenticatedAt: at,
        lifetimes: {
          idleSeconds: kernel.config.lifetimes.restrictedSessionSeconds,
          absoluteSeconds: kernel.config.lifetimes.restrictedSessionSeconds,
        },
      });
      const result = await kernel.store.bootstrapIdentity({
        user: { id: userId, primaryEmail: body.primaryEmail, displayName: body.displayName },
        organization: { id: organizationId, name: body.organizationName, slug: body.organizationSlug },
        membership: { id: id(), organizationId, userId, role: 'owner' },
        session: issued.session,
        receiptDigest: encodeBase64Url(createHash('sha256').update(body.secret, 'utf8').digest()),
        at,
        audits: [
          kernel.audit.event(exchange, at, {
            actor: { type: 'system' },
            action: 'identity.bootstrapped',
            organizationId,
            target: { type: 'organization', id: organizationId },
          }),
        ],
      });
      if (!result.ok) {
        if (result.code === 'already_exists' || result.code === 'unique_constraint')
          throw new IdentityError('conflict');
        throw new IdentityError(mapStoreError(result.code, 'identity'));
      }
      const { user, organization, membership, session } = result.value;
      const granted = grantSession(kernel, exchange, issued, session);
      respondIdentityJson(exchange, 201, {
        userId: user.id,
        organization: organizationView(organization),
        ownerMembership: membershipView(membership),
        sessionId: granted.sessionId,
        idleExpiresAt: granted.idleExpiresAt,
        absoluteExpiresAt: granted.absoluteExpiresAt,
        csrfToken: granted.csrfToken,
      });
    },
  );

  router.post(
    '/identity/v1/invitations/enroll',
    ANON,
    rateLimited(kernel, 'invitation_enroll', 'peer'),
    async (exchange) => {
      const body = await readIdentityBody(kernel, exchange, ENROLL_BODY);
      const policy = kernel.config.registrationPolicy;
      const secret = parseInvitationToken(body.token);
      if (policy === 'disabled' || secret === undefined) throw new IdentityError('invalid_credentials');
      const at = requestTime(exchange);
      const userId = id();
      const membershipId = id();
      const issued = mintSession(kernel, {
        userId,
        assurance: 'recovery',
        authenticationMethod: 'invitation',
        authenticatedAt: at,
        lifetimes: {
          idleSeconds: IDENTITY_FIXED_LIFETIMES.invitationEnrollmentSessionSeconds,
          absoluteSeconds: IDENTITY_FIXED_LIFETIMES.invitationEnrollmentSessionSeconds,
        },
      });
      const audits = (invitation: InvitationRecord) =>
        enrollmentAudits(kernel, exchange, at, invitation, userId, membershipId);
      const ring = kernel.keys.recoveryPepper;
      let result;
      // Try the current pepper version first, then previous ones (identity-model §2 key rings).
      for (const pepper of [ring.current, ...ring.previous]) {
        result = await kernel.store.enrollInvitation({
          tokenDigest: {
            algorithm: 'hmac-sha256',
            encoded: encodeBase64Url(digestInvitationToken(pepper.key, secret)),
            keyVersion: pepper.version,
          },
          at,
          user: { id: userId, primaryEmail: null, displayName: body.displayName },
          membershipId,
          session: issued.session,
          requireIssuingUser: policy === 'admin_only',
          audits,
        });
        if (result.ok || result.code !== 'not_found') break;
      }
      if (result === undefined || !result.ok) {
        const code = result?.code;
        throw new IdentityError(
          code === 'unavailable' || code === 'internal' ? 'service_unavailable' : 'invalid_credentials',
        );
      }
      const { user, membership, session } = result.value;
      const granted = grantSession(kernel, exchange, issued, session);
      respondIdentityJson(exchange, 201, {
        userId: user.id,
        organizationId: membership.organizationId,
        membership: membershipView(membership),
        sessionId: granted.sessionId,
        assurance: 'recovery',
        authenticatedAt: granted.authenticatedAt,
        idleExpiresAt: granted.idleExpiresAt,
        absoluteExpiresAt: granted.absoluteExpiresAt,
        csrfToken: granted.csrfToken,
      });
    },
  );
  return router;
}

/** Route 46 exists only while the lifecycle is `pending` with a secret; otherwise 404. */
function bootstrapAvailable(kernel: IdentityKernel) {
  return async (_exchange: Exchange, next: () => Promise<void>) => {
    if (kernel.config.bootstrap.lifecycle !== 'pending' || kernel.keys.bootstrapSecret === undefined)
      throw new IdentityError('not_found');
    await next();
  };
}

function enrollmentAudits(
  kernel: IdentityKernel,
  exchange: Exchange,
  at: Date,
  invitation: InvitationRecord,
  userId: string,
  membershipId: string,
) {
  const actor = { type: 'user', userId } as const;
  const organizationId = invitation.organizationId;
  return [
    kernel.audit.event(exchange, at, {
      actor,
      action: 'user.created',
      organizationId,
      target: { type: 'user', id: userId },
      reasonCode: 'invitation',
    }),
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
  ];
}
