import type { Exchange, Middleware } from '@tessera/web';
import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';
import { resolveRequestId } from '../tokens/request-id.format.js';
import { IDENTITY_ATTRIBUTES } from './identity-exchange.js';
import { respondIdentityError } from './identity-response.js';
import { resolveClient, type ResolvedClient } from './client-address.js';
import type { BlockList } from 'node:net';
import { hasNonCanonicalIdentityPath } from './identity-router-errors.js';

/**
 * Stage 1 (order 100): reuse a single valid request id header, else mint `req_` + b64url(16 B);
 * echo it in the response header.
 *
 * @example
 * { order: 100, middleware: identityRequestId(runtime.random, 'X-Request-ID') }
 */
export function identityRequestId(random: RandomSource, headerName = 'X-Request-ID'): Middleware {
  return async (exchange, next) => {
    const id = resolveRequestId(exchange.headerValues(headerName), random);
    exchange.attributes.set(IDENTITY_ATTRIBUTES.requestId, id);
    exchange.setHeader(headerName, id);
    await next();
  };
}

/** Stage 2 (order 200): one instant from the runtime clock for every later decision of the request. */
export function identityRequestTime(clock: IdentityClock): Middleware {
  return async (exchange, next) => {
    exchange.attributes.set(IDENTITY_ATTRIBUTES.requestTime, clock.now());
    await next();
  };
}

/** Paths the identity platform owns (the authority check and identity envelopes apply there). */
export function isIdentityOwnedPath(path: string): boolean {
  return (
    path.startsWith('/identity/') || path.startsWith('/oauth/') || path === '/scim/v2' || path.startsWith('/scim/v2/')
  );
}

/**
 * Stage 3 (order 250): resolves the client through trusted proxies. On identity-owned paths it
 * refuses with 400 `request_invalid` a non-canonical (percent-escaped) `/identity/` path, two
 * `Host` headers or a `Host` that disagrees with an absolute-form target, and, when `enforce` is
 * set (staging/production), a scheme + host other than `publicBaseUrl`'s.
 */
export function identityAuthorityCheck(options: {
  publicBaseUrl: string;
  enforce: boolean;
  trusted: BlockList | null;
}): Middleware {
  const expected = new URL(options.publicBaseUrl);
  const scheme = expected.protocol.slice(0, -1);
  const host = expected.host.toLowerCase();
  return async (exchange, next) => {
    const client: ResolvedClient = resolveClient(exchange, options.trusted);
    exchange.attributes.set(IDENTITY_ATTRIBUTES.clientAddress, client.address);
    exchange.attributes.set(IDENTITY_ATTRIBUTES.trustedProxy, client.trustedProxy);
    if (!isIdentityOwnedPath(exchange.path)) return next();
    if (hasNonCanonicalIdentityPath(exchange.path) || !hasSingleAuthority(exchange)) {
      return respondIdentityError(exchange, 'request_invalid');
    }
    if (options.enforce && (client.scheme !== scheme || client.host !== host)) {
      return respondIdentityError(exchange, 'request_invalid');
    }
    await next();
  };
}

/**
 * `false` for two `Host` headers, or an absolute-form target (`GET http://a/…`) whose authority
 * differs from `Host`: the request names two authorities, and which one a component reads differs.
 */
function hasSingleAuthority(exchange: Exchange): boolean {
  const hosts = exchange.headerValues('host');
  if (hosts.length > 1) return false;
  const authority = exchange.targetAuthority;
  return authority === undefined || (hosts.length === 1 && hosts[0]!.trim().toLowerCase() === authority);
}

/** The client address resolved at stage 3 ('' when unknown). */
export function getClientAddress(exchange: Exchange): string {
  return (exchange.attributes.get(IDENTITY_ATTRIBUTES.clientAddress) as string | undefined) ?? '';
}
