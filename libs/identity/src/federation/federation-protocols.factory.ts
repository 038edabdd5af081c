import type { IdentityKernel } from '../identity-kernel.js';
import { federationHttpClient } from './federation-outbound.js';
import type { FederationProtocols } from './federation-protocols.js';
import { OidcRelyingParty } from './oidc/index.js';
import { buildAuthnRequestUrl } from './saml/saml-authn-request.js';
import { parseIdpMetadata, serviceProviderMetadata } from './saml/saml-metadata.js';
import { verifySamlResponse } from './saml/saml-response.verifier.js';

/**
 * The OIDC relying party and SAML service provider of one kernel: outbound fetches through the
 * runtime HTTP client under the federation URL policy, times from the runtime clock, skew and
 * RFC 9207 policy from the configuration. Built once per router (the OIDC discovery and JWKS
 * caches live in it).
 *
 * @example
 * const protocols = createFederationProtocols(kernel);
 */
export function createFederationProtocols(kernel: IdentityKernel): FederationProtocols {
  const { config, runtime } = kernel;
  const skew = config.lifetimes.federationClockSkewSeconds;
  return {
    oidc: new OidcRelyingParty({
      httpClient: federationHttpClient(runtime.httpClient, config.environment),
      clock: runtime.clock,
      policy: {
        clockSkewSeconds: skew,
        maxIdTokenLifetimeSeconds: 86_400,
        allowMissingIssParameter: kernel.federation.allowMissingIssParameter,
      },
    }),
    saml: {
      buildAuthnRequestUrl,
      verifySamlResponse: (sp, idp, input) =>
        verifySamlResponse(sp, idp, { clockSkewSeconds: skew, maxAssertionLifetimeSeconds: 600 }, input),
      serviceProviderMetadata,
      parseIdpMetadata,
    },
  };
}
