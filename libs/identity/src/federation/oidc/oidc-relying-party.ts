import * as client from 'openid-client';
import type { IdentityClock, IdentityHttpClient } from '../../runtime/identity.runtime.js';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { assertTransactionSecret, checkCallbackQuery } from './oidc-callback.checks.js';
import { exchangeCode, oidcConfiguration, type OidcOperationContext } from './oidc-code-exchange.js';
import { assertOidcSettings, fetchOidcDiscovery, type ValidatedOidcDiscovery } from './oidc-discovery.js';
import { sha256Base64Url } from './oidc-id-token.guard.js';
import { OidcJwksCache } from './oidc-jwks.cache.js';
import type {
  OidcAuthorizationInput,
  OidcCallbackInput,
  OidcClientSettings,
  OidcDiscoverySummary,
  OidcIdentity,
  OidcPolicy,
} from './oidc.types.js';

/**
 * How long a validated discovery document is reused (`identity-http.md` §6).
 *
 * @example
 * OIDC_DISCOVERY_TTL_MS; // 3 600 000
 */
export const OIDC_DISCOVERY_TTL_MS = 60 * 60 * 1000;

/** Bound on cached discovery documents (one per issuer, client and origin allowlist). */
const MAX_CACHED_DISCOVERIES = 1000;

/**
 * What {@link OidcRelyingParty} takes from its environment.
 *
 * @example
 * new OidcRelyingParty({ httpClient: federationOutbound(runtime.httpClient), clock: runtime.clock, policy: DEFAULT_OIDC_POLICY });
 */
export interface OidcRelyingPartyDeps {
  /** Already wrapped by the federation outbound URL policy. */
  readonly httpClient: IdentityHttpClient;
  readonly clock: IdentityClock;
  readonly policy: OidcPolicy;
}

/**
 * The OpenID Connect relying party of federation (`identity-http.md` §6) over `openid-client`:
 * discovery (cached 1 h per issuer + client, validated: exact issuer, allowlisted endpoint origins,
 * PKCE S256, ES256/RS256), the authorization URL (code flow, PKCE S256, state, nonce) and the
 * callback (state, RFC 9207 `iss`, code exchange, every ID-token check, signature against a JWKS
 * cached 15 min with one forced refresh on an unknown `kid`). Every failure is a
 * {@link FederationProtocolError} whose text carries no provider content.
 *
 * @example
 * const rp = new OidcRelyingParty({ httpClient, clock, policy: DEFAULT_OIDC_POLICY });
 * const location = await rp.authorizationUrl(settings, { state, nonce, codeVerifier });
 * // … the browser comes back to the callback …
 * const identity = await rp.completeCallback(settings, { query, expectedState: state, nonceDigest, codeVerifier });
 */
export class OidcRelyingParty {
  private readonly httpClient: IdentityHttpClient;
  private readonly clock: IdentityClock;
  private readonly policy: OidcPolicy;
  private readonly jwks: OidcJwksCache;
  private readonly discoveries = new Map<string, { value: ValidatedOidcDiscovery; fetchedAtMs: number }>();
  private readonly discovering = new Map<string, Promise<ValidatedOidcDiscovery>>();

  constructor(deps: OidcRelyingPartyDeps) {
    assertOidcPolicy(deps.policy);
    this.httpClient = deps.httpClient;
    this.clock = deps.clock;
    this.policy = Object.freeze({ ...deps.policy });
    this.jwks = new OidcJwksCache(deps.httpClient, deps.clock);
  }

  /**
   * Discovery and its validation (cached 1 h per issuer + client); used at registration to
   * validate a provider. Throws `FederationProtocolError('configuration' | 'unavailable')`.
   */
  async discover(settings: OidcClientSettings): Promise<OidcDiscoverySummary> {
    return (await this.discovery(settings)).summary;
  }

  /**
   * The provider's authorization URL: response type `code`, scope `openid`, PKCE S256, state and
   * nonce. It starts with the discovered `authorization_endpoint` followed by `?`.
   */
  async authorizationUrl(settings: OidcClientSettings, input: OidcAuthorizationInput): Promise<string> {
    assertTransactionSecret(input.state, 'state');
    assertTransactionSecret(input.nonce, 'nonce');
    assertTransactionSecret(input.codeVerifier, 'code verifier');
    const context = await this.context(settings);
    const url = client.buildAuthorizationUrl(oidcConfiguration(context), {
      redirect_uri: settings.redirectUri,
      response_type: 'code',
      scope: 'openid',
      state: input.state,
      nonce: input.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(input.codeVerifier),
      code_challenge_method: 'S256',
    }).href;
    if (!url.startsWith(`${context.discovery.summary.authorizationEndpoint}?`)) {
      throw new FederationProtocolError('configuration', 'authorization_endpoint_invalid');
    }
    return url;
  }

  /**
   * Checks the callback query (state, RFC 9207 `iss`, IdP error), exchanges the code and runs
   * every ID-token check of `identity-http.md` §6. Throws {@link FederationProtocolError}.
   */
  async completeCallback(settings: OidcClientSettings, input: OidcCallbackInput): Promise<OidcIdentity> {
    assertTransactionSecret(input.expectedState, 'state');
    assertTransactionSecret(input.nonceDigest, 'nonce digest');
    assertTransactionSecret(input.codeVerifier, 'code verifier');
    const context = await this.context(settings);
    const code = checkCallbackQuery(input.query, {
      expectedState: input.expectedState,
      issuer: settings.issuer,
      issParameterSupported: context.discovery.summary.issParameterSupported,
      allowMissingIssParameter: this.policy.allowMissingIssParameter,
    });
    const callbackUrl = new URL(settings.redirectUri);
    callbackUrl.searchParams.set('code', code);
    callbackUrl.searchParams.set('state', input.expectedState);
    const iss = input.query.get('iss');
    if (iss !== null) callbackUrl.searchParams.set('iss', iss);
    const { idToken, inspected, claims } = await exchangeCode(
      context,
      { httpClient: this.httpClient, jwks: this.jwks },
      callbackUrl,
      input,
    );
    if (claims.iss !== inspected.claims.issuer || claims.sub !== inspected.claims.subject) {
      throw new FederationProtocolError('token_invalid', 'id_token_claim');
    }
    return Object.freeze({
      issuer: inspected.claims.issuer,
      subject: inspected.claims.subject,
      idTokenExpiresAt: new Date(inspected.claims.expiresAtSeconds * 1000),
      replayDigest: sha256Base64Url(inspected.claims.jti ?? idToken),
    });
  }

  private async context(settings: OidcClientSettings): Promise<OidcOperationContext> {
    return { settings, discovery: await this.discovery(settings), policy: this.policy, clock: this.clock };
  }

  private async discovery(settings: OidcClientSettings): Promise<ValidatedOidcDiscovery> {
    assertOidcSettings(settings);
    // The validation depends on the client type (auth method) and the origin allowlist as well.
    const origins = [...(settings.extraEndpointOrigins ?? [])].sort();
    const key = JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret === null, origins]);
    const cached = this.discoveries.get(key);
    if (cached !== undefined && this.clock.now().getTime() - cached.fetchedAtMs < OIDC_DISCOVERY_TTL_MS) {
      return cached.value;
    }
    let pending = this.discovering.get(key);
    if (pending === undefined) {
      pending = fetchOidcDiscovery(this.httpClient, settings).finally(() => this.discovering.delete(key));
      this.discovering.set(key, pending);
    }
    const value = await pending;
    this.discoveries.delete(key);
    this.discoveries.set(key, { value, fetchedAtMs: this.clock.now().getTime() });
    if (this.discoveries.size > MAX_CACHED_DISCOVERIES) {
      const oldest = this.discoveries.keys().next();
      if (oldest.done !== true) this.discoveries.delete(oldest.value);
    }
    return value;
  }
}

function assertOidcPolicy(policy: OidcPolicy): void {
  const skew = policy.clockSkewSeconds;
  if (!Number.isInteger(skew) || skew < 0 || skew > 300) {
    throw new RangeError('OIDC clockSkewSeconds must be an integer in 0..300');
  }
  const lifetime = policy.maxIdTokenLifetimeSeconds;
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > 86_400) {
    throw new RangeError('OIDC maxIdTokenLifetimeSeconds must be an integer in 1..86400');
  }
}
