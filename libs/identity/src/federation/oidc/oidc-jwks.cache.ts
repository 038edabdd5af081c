import type { IdentityClock, IdentityHttpClient } from '../../runtime/identity.runtime.js';
import { parseStrictJson } from '../../http/strict-json.js';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { sendOidcRequest } from './oidc-outbound.fetch.js';

/**
 * How long a provider's key set is trusted before it is fetched again (`identity-http.md` §6).
 *
 * @example
 * OIDC_JWKS_TTL_MS; // 900 000
 */
export const OIDC_JWKS_TTL_MS = 15 * 60 * 1000;

/** Bound on cached key sets (one per provider JWKS URI); the oldest is dropped first. */
const MAX_CACHED_KEY_SETS = 1000;

/**
 * A provider's JSON Web Key Set as last fetched: the document (strictly parsed) and its key ids.
 *
 * @example
 * if (keySet.kids.has(kid)) ...
 */
export interface OidcKeySet {
  /** The JWKS document exactly as openid-client will read it. */
  readonly json: string;
  readonly kids: ReadonlySet<string>;
  readonly fetchedAtMs: number;
}

/**
 * The JWKS cache: 15 minutes by the runtime clock, one request in flight per URI, and a forced
 * refresh the caller asks for when an ID token names an unknown `kid`. openid-client verifies the
 * signature with the keys served from here (through its `customFetch`), so its own internal cache
 * policy never decides when the provider is asked.
 *
 * @example
 * const cache = new OidcJwksCache(httpClient, clock);
 * const keys = await cache.get(jwksUri);
 * const fresh = keys.kids.has(kid) ? keys : await cache.refresh(jwksUri);
 */
export class OidcJwksCache {
  private readonly entries = new Map<string, OidcKeySet>();
  private readonly inFlight = new Map<string, Promise<OidcKeySet>>();

  constructor(
    private readonly httpClient: IdentityHttpClient,
    private readonly clock: IdentityClock,
  ) {}

  /** The cached key set while younger than 15 minutes, else a freshly fetched one. */
  async get(jwksUri: string): Promise<OidcKeySet> {
    const cached = this.entries.get(jwksUri);
    if (cached !== undefined && this.clock.now().getTime() - cached.fetchedAtMs < OIDC_JWKS_TTL_MS) return cached;
    return this.refresh(jwksUri);
  }

  /** Fetches the key set now (joining a fetch already in flight) and caches it. */
  refresh(jwksUri: string): Promise<OidcKeySet> {
    const pending = this.inFlight.get(jwksUri);
    if (pending !== undefined) return pending;
    const fetching = this.fetch(jwksUri).finally(() => this.inFlight.delete(jwksUri));
    this.inFlight.set(jwksUri, fetching);
    return fetching;
  }

  private async fetch(jwksUri: string): Promise<OidcKeySet> {
    const response = await sendOidcRequest(
      this.httpClient,
      'GET',
      jwksUri,
      { accept: 'application/json, application/jwk-set+json' },
      undefined,
      'jwks',
    );
    if (response.status !== 200) throw new FederationProtocolError('unavailable', 'jwks_status');
    const json = response.body.toString('utf8');
    const document = parseStrictJson(json);
    if (!isObject(document) || !Array.isArray(document['keys']) || !document['keys'].every(isObject)) {
      throw new FederationProtocolError('token_invalid', 'jwks_malformed');
    }
    const kids = new Set<string>();
    for (const key of document['keys'] as Record<string, unknown>[]) {
      if (typeof key['kid'] === 'string') kids.add(key['kid']);
    }
    const keySet: OidcKeySet = Object.freeze({ json, kids, fetchedAtMs: this.clock.now().getTime() });
    this.entries.delete(jwksUri);
    this.entries.set(jwksUri, keySet);
    if (this.entries.size > MAX_CACHED_KEY_SETS) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    return keySet;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
