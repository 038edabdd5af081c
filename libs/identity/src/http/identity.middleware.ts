import type { Middleware } from '@tessera/web';
import type { CapabilityResolver, OrganizationSelector } from '../context/capability-resolver.js';
import { buildSessionContext, organizationIdFromIdentityPath } from '../context/context-builder.js';
import type { IdentityStoreReads } from '../store/identity-store.port.js';
import { cookieValues } from '../sessions/session-cookie.js';
import type { SessionResolver } from '../sessions/session-resolver.js';
import { resolveBearer, type BearerResolver } from './bearer-credential.js';
import { getRequestId, getRequestTime, IDENTITY_ATTRIBUTES } from './identity-exchange.js';
import { respondIdentityError } from './identity-response.js';
import { isIdentityOwnedPath } from './pipeline-stages.js';
import { isScimPath } from '../scim/http/scim-response.js';

const BEARER_SCHEME = /^bearer(?: |$)/i;

/**
 * The `Authorization` headers identity resolves: all of them on identity-owned paths; on host
 * routes only when one uses the `Bearer` scheme, so another scheme (`@tessera/core` Basic, ...) is
 * left to the host and the request is anonymous for identity (identity-http §2.1).
 */
function claimedAuthorization(values: readonly string[], path: string): readonly string[] {
  if (values.length === 0 || isIdentityOwnedPath(path)) return values;
  return values.some((value) => BEARER_SCHEME.test(value.trimStart())) ? values : [];
}

/** What {@link identityMiddleware} needs. */
export interface IdentityMiddlewareOptions {
  readonly sessions: SessionResolver;
  readonly store: Pick<IdentityStoreReads, 'findOrganization' | 'findMembershipForUser'>;
  readonly capabilityResolvers: readonly CapabilityResolver[];
  readonly cookieName: string;
  /** `true` for identity routes whose caller class lacks ANON (cookie failures are answered there). */
  readonly answersCookieFailures: (method: string, path: string) => boolean;
  /** Extra organization selectors for host routes. */
  readonly organizationSelectors?: readonly OrganizationSelector[];
  /** Resolves `Authorization: Bearer` tokens (service credentials); without one every bearer is refused. */
  readonly bearer?: BearerResolver;
}

/**
 * Stage 4 (order 300), credential resolution (identity-http §2.1). Anonymous requests get no
 * context and create nothing. On host routes a non-`Bearer` `Authorization` is the host's, not
 * identity's. A failing session cookie is answered on identity routes that need
 * a caller; elsewhere it is treated as absent and its failure recorded for host guards. Bearer
 * tokens go to the `bearer` resolver (see `resolveBearer`); its failures are always answered.
 *
 * @example
 * { order: 300, middleware: identityMiddleware({ sessions, store, capabilityResolvers: [], cookieName, answersCookieFailures }) }
 */
export function identityMiddleware(options: IdentityMiddlewareOptions): Middleware {
  return async (exchange, next) => {
    // SCIM authenticates its own bearer tokens (identity-http §7); cookies never authenticate there.
    if (isScimPath(exchange.path)) return next();
    const cookies = cookieValues(exchange.headerValues('cookie'), options.cookieName);
    const authorization = claimedAuthorization(exchange.headerValues('authorization'), exchange.path);
    if (cookies.length > 0 && authorization.length > 0) return respondIdentityError(exchange, 'invalid_credentials');
    if (authorization.length > 0) return resolveBearer(exchange, next, options.bearer, options.organizationSelectors);
    if (cookies.length === 0) return next();
    const requestTime = getRequestTime(exchange) ?? new Date();
    const answers = options.answersCookieFailures(exchange.method, exchange.path);
    const result =
      cookies.length > 1
        ? ({ ok: false, code: 'invalid_credentials' } as const)
        : await options.sessions.resolve(cookies[0]!, requestTime);
    if (!result.ok) {
      if (result.code === 'service_unavailable' || answers) return respondIdentityError(exchange, result.code);
      exchange.attributes.set(IDENTITY_ATTRIBUTES.credentialFailure, result.code);
      return next();
    }
    exchange.attributes.set(IDENTITY_ATTRIBUTES.sessionCookiePresent, true);
    const organizationId =
      organizationIdFromIdentityPath(exchange.path) ??
      options.organizationSelectors?.map((select) => select(exchange.path)).find((id) => id !== undefined);
    try {
      const context = await buildSessionContext(options.store, options.capabilityResolvers, {
        session: result.session,
        user: result.user,
        organizationId,
        requestId: getRequestId(exchange) ?? '',
        requestTime,
      });
      exchange.attributes.set(IDENTITY_ATTRIBUTES.context, context);
    } catch {
      return respondIdentityError(exchange, 'service_unavailable');
    }
    await next();
  };
}
