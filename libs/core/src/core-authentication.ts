import type { Exchange } from '@tessera/web';
import type { CoreAuthenticationProvider } from './authentication-provider.js';
import { CoreConfigError } from './core.errors.js';
import { CORE_PRINCIPAL_ATTRIBUTE, createCorePrincipal, getCorePrincipal, type CorePrincipal } from './principal.js';

/**
 * The principal of an exchange: one already stored by earlier core middleware or guard, else the
 * provider's answer (validated, then stored under {@link CORE_PRINCIPAL_ATTRIBUTE}); `null` when
 * there is none.
 *
 * @example
 * const principal = await resolveCorePrincipal(exchange, provider);
 */
export async function resolveCorePrincipal(
  exchange: Exchange,
  provider: CoreAuthenticationProvider | undefined,
): Promise<CorePrincipal | null> {
  const existing = getCorePrincipal(exchange);
  if (existing !== undefined) return existing;
  if (provider === undefined) return null;
  const found = await provider.authenticate(exchange);
  if (found === null || found === undefined) return null;
  const principal = createCorePrincipal(found);
  exchange.attributes.set(CORE_PRINCIPAL_ATTRIBUTE, principal);
  return principal;
}

/**
 * Throws unless `provider` implements the port.
 *
 * @example
 * assertCoreAuthenticationProvider(options.provider, 'CoreModule options.provider');
 */
export function assertCoreAuthenticationProvider(
  provider: unknown,
  where: string,
): asserts provider is CoreAuthenticationProvider {
  const candidate = provider as Partial<CoreAuthenticationProvider> | null | undefined;
  if (candidate === null || typeof candidate !== 'object' || typeof candidate.authenticate !== 'function') {
    throw new CoreConfigError(
      'invalid_provider_options',
      `${where}: the authentication provider must implement authenticate(exchange)`,
    );
  }
  if (candidate.challenge !== undefined && typeof candidate.challenge !== 'function') {
    throw new CoreConfigError('invalid_provider_options', `${where}: challenge, when present, must be a function`);
  }
}
