import type { Exchange } from '@tessera/web';
import type { IdentityContext } from './identity-context.js';

/**
 * The request facts a domain service command needs: the exchange (request facts of its audit
 * events, ceremony cookies), the request's captured instant, and — for a signed-in caller — the
 * caller's context.
 */
export interface RequestFacts {
  readonly exchange: Exchange;
  readonly at: Date;
}

/**
 * A service command made by a signed-in caller.
 *
 * @example
 * await sessions.logout({ exchange, at, context });
 */
export interface IdentityCall extends RequestFacts {
  readonly context: IdentityContext;
}
