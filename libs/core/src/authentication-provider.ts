import { Inject } from '@nestjs/common';
import type { Exchange } from '@tessera/web';
import type { CorePrincipal } from './principal.js';

/**
 * The authentication-provider port: turns a request's credential into a {@link CorePrincipal}.
 * `null` means "no usable credential" (absent, malformed, unknown or wrong) and is answered 401; a
 * throw (e.g. the key store is down) is answered 500, never treated as anonymous.
 *
 * @example
 * class HmacWebhookProvider implements CoreAuthenticationProvider {
 *   async authenticate(exchange: Exchange): Promise<CorePrincipal | null> {
 *     return (await verifySignature(exchange)) ? webhookPrincipal : null;
 *   }
 * }
 */
export interface CoreAuthenticationProvider {
  /** Resolves the request's principal, or `null` for 401. Must not answer the exchange. */
  authenticate(exchange: Exchange): Promise<CorePrincipal | null>;
  /** The `WWW-Authenticate` value of a 401 from this provider (e.g. `Basic realm="metrics"`). */
  challenge?(): string | undefined;
}

/**
 * Injection token of the {@link CoreAuthenticationProvider} port (provided by `CoreModule`).
 *
 * @example
 * { provide: CoreAuthenticationProvider, useValue: new ApiKeyAuthenticationProvider({ keys }) }
 */
export const CoreAuthenticationProvider: unique symbol = Symbol('CoreAuthenticationProvider');

/**
 * Injects the module's {@link CoreAuthenticationProvider}.
 *
 * @example
 * constructor(@InjectCoreAuthenticationProvider() private readonly provider: CoreAuthenticationProvider) {}
 */
export function InjectCoreAuthenticationProvider(): PropertyDecorator & ParameterDecorator {
  return Inject(CoreAuthenticationProvider);
}
