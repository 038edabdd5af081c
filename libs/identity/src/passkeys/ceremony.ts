import type { Exchange, Middleware } from '@tessera/web';
import { IdentityError, type IdentityErrorCode } from '../errors/identity.errors.js';
import { mapStoreError } from '../errors/store.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { cookieValues } from '../sessions/session-cookie.js';
import type { AuditActor, ChallengePurpose, ChallengeRecord } from '../store/identity-records.js';
import { decodeBase64Url, encodeBase64Url } from '../tokens/base64url.codec.js';
import { lengthPrefixed } from '../tokens/keyed-digest.crypto.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';

/** The ceremony cookie (identity-http §9.1): binds a WebAuthn start to its finish. */
export const CEREMONY_COOKIE = '__Host-tessera_ceremony';

/** Where a passkey registration comes from (identity-http §4.3); bound into the payload digest. */
export type RegistrationSource =
  'bootstrap' | 'admin_invitation' | 'recovery' | 'existing_account' | 'federated_first_passkey';

/** A started ceremony: the id and the raw challenge for the WebAuthn options. */
export interface StartedCeremony {
  readonly ceremonyId: string;
  readonly challenge: Uint8Array;
}

function ceremonyCookie(value: string, maxAgeSeconds: number): string {
  return `${CEREMONY_COOKIE}=${value}; Max-Age=${maxAgeSeconds}; Path=/; Secure; HttpOnly; SameSite=Strict`;
}

/** Clears the ceremony cookie; every finish sends it, whatever the outcome. */
function clearCeremonyCookie(exchange: Exchange): void {
  exchange.appendHeader('set-cookie', `${CEREMONY_COOKIE}=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict`);
}

/**
 * First middleware of every finish route (3, 5, 7): the ceremony cookie is cleared whatever the
 * outcome, including the caller gate's 401 and the limiter's 429 that answer before the handler.
 *
 * @example
 * router.post('/identity/v1/passkeys/step-up/finish', CLEARS_CEREMONY, USER, handler);
 */
export const CLEARS_CEREMONY: Middleware = (exchange, next) => {
  clearCeremonyCookie(exchange);
  return next();
};

/** SHA-256(purpose ‖ registration source ‖ RP ID), length-prefixed (identity-model §2). */
export function payloadDigest(kernel: IdentityKernel, purpose: ChallengePurpose, source: string): string {
  return encodeBase64Url(kernel.runtime.crypto.sha256(lengthPrefixed(purpose, source, kernel.config.rp.id)));
}

/**
 * Persists a pending challenge (TTL = `lifetimes.challengeSeconds`) bound to a fresh ceremony
 * cookie and sets that cookie.
 *
 * @example
 * const { ceremonyId, challenge } = await startCeremony(kernel, exchange, at, { purpose: 'webauthn_authentication', userId: null, source: 'none' });
 */
export async function startCeremony(
  kernel: IdentityKernel,
  exchange: Exchange,
  at: Date,
  input: { purpose: ChallengePurpose; userId: string | null; source: string },
): Promise<StartedCeremony> {
  const { crypto, random, clock } = kernel.runtime;
  const challenge = random.bytes(32);
  const binding = random.bytes(32);
  const ttl = kernel.config.lifetimes.challengeSeconds;
  const ceremonyId = generateUuidV7(clock, random);
  const result = await kernel.store.createChallenge({
    challenge: {
      id: ceremonyId,
      purpose: input.purpose,
      challengeDigest: { algorithm: 'sha256', encoded: encodeBase64Url(crypto.sha256(challenge)), keyVersion: null },
      bindingDigest: encodeBase64Url(crypto.sha256(binding)),
      payloadDigest: payloadDigest(kernel, input.purpose, input.source),
      userBindingDigest: null,
      userId: input.userId,
      organizationId: null,
      expiresAt: new Date(at.getTime() + ttl * 1000),
    },
    at,
    audits: [],
  });
  if (!result.ok) throw new IdentityError(mapStoreError(result.code, 'identity'));
  exchange.appendHeader('set-cookie', ceremonyCookie(encodeBase64Url(binding), ttl));
  return { ceremonyId, challenge };
}

/** The ceremony a finish names: pending, of the route's purpose; otherwise 400 `challenge_invalid`. */
export async function claimCeremony(
  kernel: IdentityKernel,
  ceremonyId: string,
  purpose: ChallengePurpose,
): Promise<ChallengeRecord> {
  const challenge = await kernel.store.findChallenge(ceremonyId).catch((cause: unknown) => {
    throw new IdentityError('service_unavailable', { cause });
  });
  return pendingCeremony(challenge, purpose);
}

/** `challenge` when it is pending and of `purpose`; otherwise 400 `challenge_invalid`. */
export function pendingCeremony(challenge: ChallengeRecord | null, purpose: ChallengePurpose): ChallengeRecord {
  if (challenge === null || challenge.state !== 'pending' || challenge.purpose !== purpose)
    throw new IdentityError('challenge_invalid');
  return challenge;
}

/** `true` when the request's single ceremony cookie hashes to the challenge's binding digest. */
export function ceremonyBindingMatches(
  kernel: IdentityKernel,
  exchange: Exchange,
  challenge: ChallengeRecord,
): boolean {
  const values = cookieValues(exchange.headerValues('cookie'), CEREMONY_COOKIE);
  if (values.length !== 1 || challenge.bindingDigest === null) return false;
  const bytes = decodeBase64Url(values[0], { minBytes: 32, maxBytes: 32 });
  const stored = decodeBase64Url(challenge.bindingDigest, { minBytes: 32, maxBytes: 32 });
  if (bytes === undefined || stored === undefined) return false;
  return kernel.runtime.crypto.timingSafeEqual(kernel.runtime.crypto.sha256(bytes), stored);
}

/**
 * Ends a pending ceremony that will not succeed — `failed`, or `expired` past its TTL — with the
 * `webauthn.ceremony_rejected` audit, then throws `code` (or `challenge_invalid` for expiry).
 * A lost race on the challenge itself still answers `code`.
 */
export async function rejectCeremony(
  kernel: IdentityKernel,
  exchange: Exchange,
  at: Date,
  challenge: ChallengeRecord,
  rejection: { code: IdentityErrorCode; reason: string; auditReason?: string; actor: AuditActor },
): Promise<never> {
  const expired = at.getTime() >= challenge.expiresAt.getTime();
  const code = expired ? 'challenge_invalid' : rejection.code;
  const auditReason = expired ? 'webauthn_challenge_expired' : (rejection.auditReason ?? rejection.code);
  await kernel.store
    .consumeChallenge({
      challengeId: challenge.id,
      expectedVersion: challenge.version,
      outcome: expired ? 'expired' : 'failed',
      failureReason: expired ? 'webauthn_challenge_expired' : rejection.reason,
      at,
      audits: [ceremonyRejectedAudit(kernel, exchange, at, challenge, rejection.actor, auditReason)],
    })
    .catch(() => undefined);
  throw new IdentityError(code);
}

/**
 * Ends a ceremony whose completion command failed without ending it (a retryable or unexpected
 * store failure rolls everything back): `failed` + rejection audit. When the store already ended
 * it (a committed rejection, or a concurrent winner), the version CAS fails and nothing is written.
 */
export async function endFailedCeremony(
  kernel: IdentityKernel,
  exchange: Exchange,
  at: Date,
  challenge: ChallengeRecord,
  actor: AuditActor,
): Promise<void> {
  await kernel.store
    .consumeChallenge({
      challengeId: challenge.id,
      expectedVersion: challenge.version,
      outcome: 'failed',
      failureReason: 'webauthn_store_rejected',
      at,
      audits: [ceremonyRejectedAudit(kernel, exchange, at, challenge, actor, 'webauthn_store_rejected')],
    })
    .catch(() => undefined);
}

/** The `webauthn.ceremony_rejected` event (identity-model §5.3). */
export function ceremonyRejectedAudit(
  kernel: IdentityKernel,
  exchange: Exchange,
  at: Date,
  challenge: ChallengeRecord,
  actor: AuditActor,
  reasonCode: string,
) {
  return kernel.audit.event(exchange, at, {
    actor,
    action: 'webauthn.ceremony_rejected',
    organizationId: null,
    target: { type: 'challenge', id: challenge.id },
    outcome: 'denied',
    reasonCode,
  });
}

/** `true` once the ceremony's TTL has passed at `at`. */
export function ceremonyExpired(challenge: ChallengeRecord, at: Date): boolean {
  return at.getTime() >= challenge.expiresAt.getTime();
}

/** Decodes the stored challenge digest (SHA-256 of the challenge bytes). */
export function challengeDigestBytes(challenge: ChallengeRecord): Uint8Array {
  return decodeBase64Url(challenge.challengeDigest.encoded, { minBytes: 32, maxBytes: 32 }) ?? new Uint8Array(32);
}
