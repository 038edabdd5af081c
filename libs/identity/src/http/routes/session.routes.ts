import type { Exchange, Router } from '@tessera/web';
import { IdentityError } from '../../errors/identity.errors.js';
import { mapStoreError } from '../../errors/store.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import type { IdentityContext } from '../../context/identity-context.js';
import type { StoreResult } from '../../store/identity-store.port.js';
import { clearedSessionCookie } from '../../sessions/session-cookie.js';
import { isUuidV7 } from '../request-fields.js';
import { respondIdentityJson } from '../identity-response.js';
import { callerGate, requestTime, requireContext } from '../route-kit.js';
import { sessionView } from '../identity-views.js';

const USER = callerGate({ user: true });
const USER_OR_RESTRICTED = callerGate({ user: true, restricted: true });

/** Unwraps a store result, mapping failures to identity errors (identity-model §9.4). */
export function unwrap<T>(result: StoreResult<T>): T {
  if (result.ok) return result.value;
  throw new IdentityError(mapStoreError(result.code, 'identity'));
}

function currentSession(context: IdentityContext) {
  const session = context.session;
  if (session === undefined) throw new IdentityError('authentication_required');
  return session;
}

/**
 * Routes 1 and 8–12 (identity-http §4.1): `GET /me`, the session list, logout, and revoking one,
 * the others or all of the caller's sessions. Revocations write their audit in the same
 * transaction; clearing the current session also clears its cookie.
 *
 * @example
 * sessionRoutes(kernel, router);
 */
export function sessionRoutes(kernel: IdentityKernel, router: Router): Router {
  const audit = (
    exchange: Exchange,
    context: IdentityContext,
    at: Date,
    action: string,
    targetId: string,
    reasonCode: string,
  ) =>
    kernel.audit.event(exchange, at, {
      actor: { type: 'user', userId: context.principal.id },
      action,
      target: { type: 'session', id: targetId },
      reasonCode,
    });
  const clearCookie = (exchange: Exchange) =>
    exchange.appendHeader('set-cookie', clearedSessionCookie(kernel.config.sessionCookie));

  router.get('/identity/v1/me', USER, async (exchange) => {
    const context = requireContext(exchange);
    const user = await kernel.store.findUser(context.principal.id);
    if (user === null) throw new IdentityError('authentication_required');
    respondIdentityJson(exchange, 200, {
      userId: user.id,
      displayName: user.displayName,
      assuranceLevel: context.principal.assurance,
    });
  });

  router.get('/identity/v1/sessions', USER, async (exchange) => {
    const context = requireContext(exchange);
    const sessions = await kernel.store.listSessionsForUser(context.principal.id);
    const now = requestTime(exchange);
    respondIdentityJson(
      exchange,
      200,
      sessions.map((session) => sessionView(session, context.session?.id, now)),
    );
  });

  router.post('/identity/v1/logout', USER_OR_RESTRICTED, async (exchange) => {
    const context = requireContext(exchange);
    const session = currentSession(context);
    const at = requestTime(exchange);
    unwrap(
      await kernel.store.revokeSession({
        sessionId: session.id,
        userId: context.principal.id,
        reason: 'logout',
        revokedAt: at,
        audit: audit(exchange, context, at, 'session.revoked', session.id, 'logout'),
      }),
    );
    clearCookie(exchange);
    respondIdentityJson(exchange, 200, { ok: true });
  });

  router.delete('/identity/v1/sessions/:sessionId', USER, async (exchange) => {
    const context = requireContext(exchange);
    const sessionId = exchange.pathParam('sessionId')!;
    if (!isUuidV7(sessionId)) throw new IdentityError('request_invalid');
    const target = await kernel.store.findSession(sessionId);
    if (target === null || target.userId !== context.principal.id || target.state !== 'active')
      throw new IdentityError('not_found');
    const at = requestTime(exchange);
    const result = await kernel.store.revokeSession({
      sessionId,
      userId: context.principal.id,
      reason: 'user_revoked_device',
      revokedAt: at,
      audit: audit(exchange, context, at, 'session.revoked', sessionId, 'user_revoked_device'),
    });
    if (!result.ok && (result.code === 'not_found' || result.code === 'session_not_active'))
      throw new IdentityError('not_found');
    unwrap(result);
    const current = sessionId === context.session?.id;
    if (current) clearCookie(exchange);
    respondIdentityJson(exchange, 200, { revokedSessionIds: [sessionId], clearCurrentCookie: current });
  });

  const revokeMany = (keepCurrent: boolean) => async (exchange: Exchange) => {
    const context = requireContext(exchange);
    const session = currentSession(context);
    const at = requestTime(exchange);
    const reason = keepCurrent ? 'revoke_others' : 'revoke_all';
    const result = unwrap(
      await kernel.store.revokeUserSessions({
        userId: context.principal.id,
        exceptSessionId: keepCurrent ? session.id : null,
        reason,
        revokedAt: at,
        audit: kernel.audit.event(exchange, at, {
          actor: { type: 'user', userId: context.principal.id },
          action: 'session.revoked',
          target: { type: 'user', id: context.principal.id },
          reasonCode: reason,
        }),
      }),
    );
    if (!keepCurrent) clearCookie(exchange);
    respondIdentityJson(exchange, 200, {
      revokedSessionIds: result.revokedSessionIds,
      clearCurrentCookie: !keepCurrent,
    });
  };
  router.post('/identity/v1/sessions/revoke-others', USER, revokeMany(true));
  router.post('/identity/v1/sessions/revoke-all', USER, revokeMany(false));
  return router;
}
