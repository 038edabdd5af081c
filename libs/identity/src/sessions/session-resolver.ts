import { decodeBase64Url } from '../tokens/base64url.codec.js';
import { timingSafeEqual } from '../tokens/keyed-digest.crypto.js';
import { digestSessionSecret, parseSessionToken } from '../tokens/secret-token.format.js';
import type { FederatedSessionStanding } from '../store/identity-federation.port.js';
import type { SessionFederation, SessionRecord, UserRecord } from '../store/identity-records.js';
import type { IdentityStore } from '../store/identity-store.port.js';
import type { SessionPepperRing } from './session-keys.js';
import type { CachedSession, SessionValidationCache } from './session-validation.cache.js';

/** Why a presented session cookie does not authenticate (identity-http §2.1). */
export type SessionFailureCode = 'invalid_credentials' | 'session_revoked' | 'session_expired' | 'service_unavailable';

/** Outcome of resolving one session token. */
export type SessionResolution =
  | { readonly ok: true; readonly session: SessionRecord; readonly user: UserRecord }
  | { readonly ok: false; readonly code: SessionFailureCode };

/** Timing of idle sliding. */
export interface SessionTouchSettings {
  readonly idleSeconds: number;
  /** A touch writes at most once per this many seconds per session. @default 60 */
  readonly touchIntervalSeconds: number;
}

const fail = (code: SessionFailureCode): SessionResolution => ({ ok: false, code });

type ResolverStore = Pick<
  IdentityStore,
  'findSessionWithUser' | 'touchIdentitySession' | 'findFederatedSessionStanding'
>;

/**
 * Validates a session cookie value against the store without creating anything: shape, digest
 * under the stored key version (constant time), state, user state and epoch, the federated
 * provenance of an `oidc`/`saml` session, expiry; then slides the idle expiry with a CAS touch at
 * most once per `touchIntervalSeconds`. Any store error fails closed with `service_unavailable`.
 *
 * @example
 * const result = await resolver.resolve(cookieValue, requestTime);
 * if (!result.ok) return respondIdentityError(exchange, result.code);
 */
export class SessionResolver {
  constructor(
    private readonly store: ResolverStore,
    private readonly peppers: SessionPepperRing,
    private readonly settings: SessionTouchSettings,
    private readonly cache?: SessionValidationCache,
  ) {}

  async resolve(token: string, now: Date): Promise<SessionResolution> {
    const parsed = parseSessionToken(token);
    if (parsed === undefined) return fail('invalid_credentials');
    try {
      // Taken before any read: an invalidation of the user that overlaps the read (or the touch)
      // moves past it, and the cache then refuses what was read.
      const generation = this.cache?.generation ?? 0;
      const cached = this.cache?.get(parsed.selector);
      if (cached !== undefined) {
        const resolution = await this.validate(parsed.selector, parsed.secret, cached, now, generation);
        if (resolution.ok) return resolution;
        // A cached read only ever admits: a refusal (an expiry another instance's touch may have
        // slid, a failed digest) is decided again on a fresh read.
        this.cache!.forget(parsed.selector);
      }
      const found = await this.read(parsed.selector, generation);
      if (found === null) return fail('invalid_credentials');
      return await this.validate(parsed.selector, parsed.secret, found, now, generation);
    } catch {
      return fail('service_unavailable');
    }
  }

  private async validate(
    selector: string,
    secret: Uint8Array,
    found: CachedSession,
    now: Date,
    generation: number,
  ): Promise<SessionResolution> {
    if (!this.digestMatches(found.session, secret)) return fail('invalid_credentials');
    const invalid = await this.validity(found.session, found.user, now);
    if (invalid !== null) return fail(invalid);
    const resolution = await this.touch(found.session, found.user, now);
    if (this.cache !== undefined && (!resolution.ok || resolution.session !== found.session)) {
      // The touch wrote a new version (or found the session changed): never serve the old read.
      this.cache.forget(selector);
      if (resolution.ok) this.cache.set({ session: resolution.session, user: resolution.user }, generation);
    }
    return resolution;
  }

  /** One round trip (a session row always has its user, by foreign key); cached when enabled. */
  private async read(sessionId: string, generation: number): Promise<CachedSession | null> {
    const found = await this.store.findSessionWithUser(sessionId);
    if (found !== null) this.cache?.set(found, generation);
    return found;
  }

  private digestMatches(session: SessionRecord, secret: Uint8Array): boolean {
    const stored = session.tokenDigest;
    const pepper = stored.keyVersion === null ? undefined : this.peppers.byVersion(stored.keyVersion);
    const expected = decodeBase64Url(stored.encoded, { minBytes: 32, maxBytes: 32 });
    if (pepper === undefined || expected === undefined) return false;
    return timingSafeEqual(digestSessionSecret(pepper.key, secret), expected);
  }

  /** {@link sessionValidity}, plus the federated provenance (read on every request, never cached). */
  private async validity(session: SessionRecord, user: UserRecord, now: Date): Promise<SessionFailureCode | null> {
    const invalid = sessionValidity(session, user, now);
    if (invalid !== null || session.federation === null) return invalid;
    const standing = await this.store.findFederatedSessionStanding(session.federation, session.userId);
    return federatedStandingValid(session.federation, standing) ? null : 'session_revoked';
  }

  private async touch(session: SessionRecord, user: UserRecord, now: Date): Promise<SessionResolution> {
    const interval = this.settings.touchIntervalSeconds * 1000;
    if (now.getTime() - session.lastUsedAt.getTime() < interval) return { ok: true, session, user };
    const idleExpiresAt = new Date(
      Math.min(now.getTime() + this.settings.idleSeconds * 1000, session.absoluteExpiresAt.getTime()),
    );
    const touched = await this.store.touchIdentitySession({
      sessionId: session.id,
      expectedVersion: session.version,
      lastUsedAt: now,
      idleExpiresAt,
    });
    if (touched.ok) return { ok: true, session: touched.value, user };
    // The CAS lost. The only write that leaves a session active is a touch, so a re-read that is
    // still valid at another version means a concurrent request slid it first (with a zero
    // interval that is every concurrent request on the session): serve that version.
    const reread = await this.store.findSessionWithUser(session.id);
    if (reread === null) return fail('session_revoked');
    const invalid = await this.validity(reread.session, reread.user, now);
    if (invalid !== null) return fail(invalid);
    if (reread.session.version !== session.version) return { ok: true, session: reread.session, user: reread.user };
    return fail('service_unavailable');
  }
}

/** The §2.1 order: revoked/rotated, user missing or inactive, epoch; then idle or absolute expiry. */
export function sessionValidity(session: SessionRecord, user: UserRecord | null, now: Date): SessionFailureCode | null {
  if (session.state !== 'active') return session.state === 'expired' ? 'session_expired' : 'session_revoked';
  if (user === null || user.state !== 'active' || session.userSessionEpoch !== user.sessionEpoch)
    return 'session_revoked';
  const t = now.getTime();
  if (t >= session.idleExpiresAt.getTime() || t >= session.absoluteExpiresAt.getTime()) return 'session_expired';
  return null;
}

/**
 * identity-http §2.1 for a federated session: its provider enabled at the session's provider
 * epoch, its tenant organization active, the user's membership there active.
 */
export function federatedStandingValid(federation: SessionFederation, standing: FederatedSessionStanding): boolean {
  return (
    standing.provider !== null &&
    standing.provider.state === 'enabled' &&
    standing.provider.sessionEpoch === federation.providerSessionEpoch &&
    standing.organizationState === 'active' &&
    standing.membershipState === 'active'
  );
}
