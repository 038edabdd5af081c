import { clearedSessionCookie } from '../../sessions/session-cookie.js';
import { respondIdentityJson } from '../identity-response.js';
import { sessionView } from '../identity-views.js';
import { route, type IdentityRouteTable, type RouteCall } from './route-table.js';
import { arrayOf, CLEARS_SESSION_COOKIE as CLEARS_SESSION, ref } from './route-doc.js';

const clearCookie = (call: RouteCall<unknown>) =>
  call.exchange.appendHeader('set-cookie', clearedSessionCookie(call.kernel.config.sessionCookie));

const revokeMany = (keepCurrent: boolean) => async (call: RouteCall<unknown>) => {
  const revokedSessionIds = await call.services.sessions.revokeMany(call.caller(), keepCurrent);
  if (!keepCurrent) clearCookie(call);
  respondIdentityJson(call.exchange, 200, { revokedSessionIds, clearCurrentCookie: !keepCurrent });
};

/**
 * Routes 1 and 8–12 (identity-http §4.1): `GET /me`, the session list, logout, and revoking one,
 * the others or all of the caller's sessions; clearing the current session also clears its cookie.
 */
export const SESSION_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: '/identity/v1/me',
    callers: { user: true, device: true },
    doc: {
      tag: 'sessions',
      summary: 'The signed-in user',
      description:
        'A device access token needs the `identity.profile` scope (else 404) and answers its user with assurance `device_token`.',
      responses: { 200: { description: 'The caller and the assurance of their session', body: ref('Me') } },
      errors: ['not_found'],
    },
    handle: async (call) => {
      const { context } = call.caller();
      const user = await call.services.sessions.me(context);
      respondIdentityJson(call.exchange, 200, {
        userId: user.id,
        displayName: user.displayName,
        assuranceLevel: context.principal.assurance,
      });
    },
  }),
  route({
    method: 'GET',
    path: '/identity/v1/sessions',
    callers: { user: true },
    doc: {
      tag: 'sessions',
      summary: 'The caller’s sessions',
      description: 'Every stored session of the user in any state, most recently used first.',
      responses: { 200: { description: 'The sessions', body: arrayOf(ref('Session')) } },
      errors: [],
    },
    handle: async (call) => {
      const { context } = call.caller();
      const sessions = await call.services.sessions.list(context);
      respondIdentityJson(
        call.exchange,
        200,
        sessions.map((session) => sessionView(session, context.session?.id, call.at)),
      );
    },
  }),
  route({
    method: 'POST',
    path: '/identity/v1/logout',
    callers: { user: true, restricted: true },
    doc: {
      tag: 'sessions',
      summary: 'Log out',
      description: 'Revokes the current session (reason `logout`) and clears its cookie. No request body.',
      responses: { 200: { description: 'Logged out', body: ref('Ok'), cookies: [CLEARS_SESSION] } },
      errors: [],
    },
    handle: async (call) => {
      await call.services.sessions.logout(call.caller());
      clearCookie(call);
      respondIdentityJson(call.exchange, 200, { ok: true });
    },
  }),
  route({
    method: 'DELETE',
    path: '/identity/v1/sessions/:sessionId',
    callers: { user: true },
    doc: {
      tag: 'sessions',
      summary: 'Revoke one of the caller’s sessions',
      responses: {
        200: {
          description: 'Revoked; the cookie is cleared when it was the current session',
          body: ref('RevokedSessions'),
          cookies: [{ ...CLEARS_SESSION, always: false }],
        },
      },
      errors: ['not_found', 'conflict'],
    },
    handle: async (call) => {
      const sessionId = call.uuid('sessionId');
      const current = await call.services.sessions.revoke(call.caller(), sessionId);
      if (current) clearCookie(call);
      respondIdentityJson(call.exchange, 200, { revokedSessionIds: [sessionId], clearCurrentCookie: current });
    },
  }),
  route({
    method: 'POST',
    path: '/identity/v1/sessions/revoke-others',
    callers: { user: true },
    doc: {
      tag: 'sessions',
      summary: 'Revoke every other session of the caller',
      description: 'No request body.',
      responses: {
        200: { description: 'The revoked sessions (`clearCurrentCookie: false`)', body: ref('RevokedSessions') },
      },
      errors: [],
    },
    handle: revokeMany(true),
  }),
  route({
    method: 'POST',
    path: '/identity/v1/sessions/revoke-all',
    callers: { user: true },
    doc: {
      tag: 'sessions',
      summary: 'Revoke every session of the caller, the current one included',
      description: 'No request body.',
      responses: {
        200: {
          description: 'The revoked sessions (`clearCurrentCookie: true`)',
          body: ref('RevokedSessions'),
          cookies: [CLEARS_SESSION],
        },
      },
      errors: [],
    },
    handle: revokeMany(false),
  }),
];
