import { invitationView, membershipView } from '../identity-views.js';
import { grantSession } from './session-grant.js';
import { respondIdentityJson } from '../identity-response.js';
import { formatTimestamp } from '../../tokens/timestamp.format.js';
import { fields, route, type IdentityRouteTable } from './route-table.js';
import { arrayOf, ref, SETS_SESSION_COOKIE } from './route-doc.js';

const INVITATIONS = '/identity/v1/organizations/:orgId/invitations';
const CREATE_BODY = fields({ email: { kind: 'email' }, role: { kind: 'text', min: 1, max: 32 } });
const TOKEN_BODY = fields({ token: { kind: 'text', min: 20, max: 512 } });
const ENROLL_BODY = fields({
  token: { kind: 'text', min: 20, max: 512 },
  displayName: { kind: 'text', min: 1, max: 200 },
});

/**
 * Invitation routes 30–34 (identity-http §4.1) and the preview (issue 17): list, create (201 with
 * the token shown once, or delivered through the notification sink) and
 * revoke an organization's invitations; accept one with an existing account; enroll a new account
 * with one (anonymous, rate limited; 201 with a 15-minute restricted session); preview one
 * (anonymous, rate limited like enrolment).
 */
export const INVITATION_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: INVITATIONS,
    callers: { user: true },
    doc: {
      tag: 'invitations',
      summary: 'An organization’s invitations',
      description: 'Needs `membership.read` there.',
      responses: { 200: { description: 'The invitations', body: arrayOf(ref('Invitation')) } },
      errors: ['not_found'],
    },
    handle: async (call) => {
      const listed = await call.services.invitations.list(call.caller().context, call.uuid('orgId'));
      respondIdentityJson(
        call.exchange,
        200,
        listed.map((invitation) => invitationView(invitation, call.at)),
      );
    },
  }),
  route({
    method: 'POST',
    path: INVITATIONS,
    callers: { user: true },
    body: CREATE_BODY,
    doc: {
      tag: 'invitations',
      summary: 'Invite someone to an organization',
      description:
        'Needs `membership.invite`; an owner invitation only by an owner with a recent passkey verification. 409 when a pending invitation exists for that email. With `notificationSink.deliverInvitation` configured the enrolment link is delivered through it (`delivered: true`) and the token is answered only with `invitations.returnTokenWithSink`; a failed delivery revokes the invitation and answers 503.',
      responses: {
        201: {
          description: 'The invitation, and its token (shown once) unless it was delivered',
          body: ref('InvitationCreated'),
        },
      },
      errors: ['not_found', 'step_up_required', 'conflict', 'service_unavailable'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const organizationId = call.uuid('orgId');
      const { email, role } = await call.body();
      const created = await call.services.invitations.create(caller, organizationId, email, role);
      // Without a delivering sink the answer is `{invitation, token}` exactly, as before the sink existed.
      respondIdentityJson(call.exchange, 201, {
        invitation: invitationView(created.invitation, call.at),
        ...(created.delivered ? { delivered: true } : {}),
        ...(created.token === undefined ? {} : { token: created.token }),
      });
    },
  }),
  route({
    method: 'DELETE',
    path: `${INVITATIONS}/:invitationId`,
    callers: { user: true },
    doc: {
      tag: 'invitations',
      summary: 'Revoke a pending invitation',
      responses: { 200: { description: 'The invitation (state `revoked`)', body: ref('Invitation') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const organizationId = call.uuid('orgId');
      const invitationId = call.uuid('invitationId');
      const revoked = await call.services.invitations.revoke(caller, organizationId, invitationId);
      respondIdentityJson(call.exchange, 200, invitationView(revoked, call.at));
    },
  }),
  route({
    method: 'POST',
    path: '/identity/v1/invitations/accept',
    callers: { user: true },
    body: TOKEN_BODY,
    doc: {
      tag: 'invitations',
      summary: 'Accept an invitation with the signed-in account',
      description:
        'The account’s primary email must equal the invitation’s; any token, expiry or email problem is 401.',
      responses: { 200: { description: 'The new membership', body: ref('Membership') } },
      errors: ['conflict', 'not_found'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const { token } = await call.body();
      respondIdentityJson(call.exchange, 200, membershipView(await call.services.invitations.accept(caller, token)));
    },
  }),
  route({
    method: 'POST',
    path: '/identity/v1/invitations/preview',
    callers: { anonymous: true },
    rateLimit: { policy: 'invitation_enroll', key: 'peer' },
    body: TOKEN_BODY,
    doc: {
      tag: 'invitations',
      summary: 'What an invitation offers, before enrolling',
      description:
        'The organization, role, inviter and expiry of a pending, unexpired invitation, for the enrolment page to say who invites whom. Any token problem is the same 401 `invalid_credentials` as enrolment; nothing is written.',
      responses: { 200: { description: 'The preview', body: ref('InvitationPreview') } },
      errors: [],
    },
    handle: async (call) => {
      const { token } = await call.body();
      const preview = await call.services.invitations.preview(call, token);
      respondIdentityJson(call.exchange, 200, {
        organizationName: preview.organizationName,
        role: preview.role,
        inviterDisplayName: preview.inviterDisplayName,
        expiresAt: formatTimestamp(preview.expiresAt),
      });
    },
  }),
  route({
    method: 'POST',
    path: '/identity/v1/invitations/enroll',
    callers: { anonymous: true },
    rateLimit: { policy: 'invitation_enroll', key: 'peer' },
    signIn: 'invitation',
    body: ENROLL_BODY,
    doc: {
      tag: 'invitations',
      summary: 'Create an account with an invitation',
      description: 'Answers a 15-minute restricted session: register a passkey next.',
      responses: {
        201: { description: 'Enrolled', body: ref('EnrollmentCreated'), cookies: [SETS_SESSION_COOKIE] },
      },
      errors: ['conflict'],
    },
    handle: async (call) => {
      const { token, displayName } = await call.body();
      const enrolled = await call.services.invitations.enroll(call, token, displayName);
      const granted = grantSession(call.kernel, call.exchange, enrolled.issued, enrolled.session);
      respondIdentityJson(call.exchange, 201, {
        userId: enrolled.user.id,
        organizationId: enrolled.membership.organizationId,
        membership: membershipView(enrolled.membership),
        sessionId: granted.sessionId,
        assurance: 'recovery',
        authenticatedAt: granted.authenticatedAt,
        idleExpiresAt: granted.idleExpiresAt,
        absoluteExpiresAt: granted.absoluteExpiresAt,
        csrfToken: granted.csrfToken,
      });
    },
  }),
];
