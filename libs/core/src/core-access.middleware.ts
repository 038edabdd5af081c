import { ForbiddenException, UnauthorizedException } from '@nestjs/common';
import type { Exchange, Middleware } from '@tessera/web';
import { coreAccessNames, coreAccessRequirement, decideAccess, type CoreAccessRequirement } from './access-decision.js';
import type { CoreAuthenticationProvider } from './authentication-provider.js';
import { assertCoreAuthenticationProvider, resolveCorePrincipal } from './core-authentication.js';

/**
 * Radix-route middleware enforcing `requirement` ({@link decideAccess}). The principal comes from
 * earlier core middleware, else from `provider`, and is stored on `exchange.attributes` under
 * `CORE_PRINCIPAL_ATTRIBUTE`. No principal → 401 `{"message":"Unauthorized","statusCode":401}`
 * (plus the provider's `WWW-Authenticate`); a missing permission or role → 403
 * `{"message":"Forbidden","statusCode":403}`: the bodies of Nest's `UnauthorizedException` and
 * `ForbiddenException`. A provider that throws fails the request (500), never opens it.
 *
 * @example
 * router.post('/webhooks/billing', requireCoreAccess({ permissions: ['webhook.deliver'] }, apiKeys), handler);
 */
export function requireCoreAccess(
  requirement: CoreAccessRequirement,
  provider?: CoreAuthenticationProvider,
): Middleware {
  const checked = coreAccessRequirement(requirement);
  if (provider !== undefined) assertCoreAuthenticationProvider(provider, 'requireCoreAccess');
  return async (exchange, next) => {
    const principal = await resolveCorePrincipal(exchange, provider);
    const decision = decideAccess(principal, checked);
    if (decision === 'unauthenticated') return respondUnauthorized(exchange, provider);
    if (decision === 'forbidden') return respondForbidden(exchange);
    return next();
  };
}

/**
 * Requires an authenticated principal, with no permission or role condition.
 *
 * @example
 * router.get('/whoami', requireCorePrincipal(provider), (ex) => ex.respond({ body: getCorePrincipal(ex) }));
 */
export function requireCorePrincipal(provider?: CoreAuthenticationProvider): Middleware {
  return requireCoreAccess({}, provider);
}

/**
 * Requires every listed permission (one name or a list).
 *
 * @example
 * router.get('/metrics', requireCorePermission('metrics.read', provider), metricsHandler);
 */
export function requireCorePermission(
  permission: string | readonly string[],
  provider?: CoreAuthenticationProvider,
): Middleware {
  const permissions = coreAccessNames('permission', typeof permission === 'string' ? [permission] : permission);
  return requireCoreAccess({ permissions }, provider);
}

/**
 * Requires at least one of the listed roles (one name or a list).
 *
 * @example
 * router.delete('/cache', requireCoreRole(['operator', 'admin'], provider), flushHandler);
 */
export function requireCoreRole(role: string | readonly string[], provider?: CoreAuthenticationProvider): Middleware {
  const roles = coreAccessNames('role', typeof role === 'string' ? [role] : role);
  return requireCoreAccess({ roles }, provider);
}

function respondUnauthorized(exchange: Exchange, provider: CoreAuthenticationProvider | undefined): void {
  const challenge = provider?.challenge?.();
  exchange.respond({
    status: 401,
    body: new UnauthorizedException().getResponse(),
    headers: challenge === undefined ? undefined : { 'www-authenticate': challenge },
  });
}

function respondForbidden(exchange: Exchange): void {
  exchange.respond({ status: 403, body: new ForbiddenException().getResponse() });
}
