import { isRestricted } from '../context/identity-context.js';
import { IdentityError, type IdentityErrorCode } from '../errors/identity.errors.js';
import { mapStoreError, type StoreErrorCode } from '../errors/store.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import {
  ceremonyBindingMatches,
  ceremonyExpired,
  ceremonyRejectedAudit,
  endFailedCeremony,
  challengeDigestBytes,
  payloadDigest,
  pendingCeremony,
  rejectCeremony,
} from './ceremony.js';
import { parseAuthenticationCredential } from './webauthn/credential-json.parser.js';
import { verifyAssertion } from './webauthn/webauthn.verifier.js';
import type { AuditActor, SessionRecord } from '../store/identity-records.js';
import type { IdentityContext } from '../context/identity-context.js';
import type { RequestFacts } from '../context/identity-call.js';
import { decodeBody, isUuidV7 } from '../http/request-fields.js';
import { storeRead } from '../http/route-kit.js';
import type { IdentitySessions, MintedSession } from '../sessions/session.service.js';

const FINISH_FIELDS = {
  ceremonyId: { kind: 'uuidv7' },
  deviceLabel: { kind: 'text', min: 1, max: 200, optional: true },
  devicePlatform: { kind: 'text', min: 1, max: 200, optional: true },
} as const;

/** The `ceremonyId` of a finish body, or 400 `request_invalid` (nothing consumed) when absent. */
export function ceremonyIdOf(json: unknown): string {
  const id = typeof json === 'object' && json !== null ? (json as Record<string, unknown>).ceremonyId : undefined;
  if (typeof id !== 'string' || !isUuidV7(id)) throw new IdentityError('request_invalid');
  return id;
}

/** `value` cut to at most `maxBytes` UTF-8 bytes on a code-point boundary. */
export function truncateUtf8(value: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const char of value) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  return out;
}

/** The step-up ceremony is bound to the session that started it. */
export function stepUpSource(session: SessionRecord): string {
  return `session:${session.id}`;
}

/** Ceremony payload source of a username-free sign-in. */
export const SIGN_IN_SOURCE = 'sign_in';

/** A finished assertion: the minted session (its cookie token) and its stored row. */
export type AssertionResult = MintedSession;

/**
 * Finish of a passkey sign-in (route 5) or step-up (route 7): ceremony claimed and consumed on
 * every attempt, strict credential decoding, ceremony-cookie binding, credential active and owned,
 * assertion verified; a counter regression quarantines the credential. Sign-in rotates a valid
 * full session of the same user (another user's session is refused), step-up rotates the current
 * session into `step_up`. Returns the new session for the route to answer `SessionCreated`.
 *
 * @example
 * const { issued, session } = await finishAssertion(kernel, sessions, { exchange, at }, context, 'sign_in', json);
 */
export async function finishAssertion(
  kernel: IdentityKernel,
  sessions: IdentitySessions,
  facts: RequestFacts,
  context: IdentityContext | undefined,
  mode: 'sign_in' | 'step_up',
  json: unknown,
): Promise<AssertionResult> {
  const { exchange, at } = facts;
  const purpose = mode === 'step_up' ? 'step_up' : 'webauthn_authentication';
  const ceremonyId = ceremonyIdOf(json);
  const { credential: raw, ...fields } = json as Record<string, unknown>;
  const credential = parseAuthenticationCredential(raw);
  // The ceremony, the credential the assertion names and that credential's user, read at once.
  const subjects = await storeRead(() => kernel.store.findAssertionSubjects(ceremonyId, credential?.id ?? null));
  const challenge = pendingCeremony(subjects.challenge, purpose);
  let actor: AuditActor =
    mode === 'step_up' && context ? { type: 'user', userId: context.principal.id } : { type: 'anonymous' };
  const reject = (code: IdentityErrorCode, reason: string) =>
    rejectCeremony(kernel, exchange, at, challenge, { code, reason, actor });
  if (ceremonyExpired(challenge, at)) return reject('challenge_invalid', 'webauthn_challenge_expired');
  const body = decodeBody(fields, FINISH_FIELDS);
  if (body === undefined || credential === undefined) return reject('request_invalid', 'request_invalid');
  if (!ceremonyBindingMatches(kernel, exchange, challenge)) return reject('invalid_credentials', 'ceremony_binding');
  const current =
    mode === 'step_up' || (context !== undefined && !isRestricted(context)) ? context?.session : undefined;
  const source = mode === 'step_up' ? (current ? stepUpSource(current) : '') : SIGN_IN_SOURCE;
  if (challenge.payloadDigest !== payloadDigest(kernel, purpose, source))
    return reject('invalid_credentials', 'payload_binding');
  const { credential: stored, owner } = subjects;
  if (stored === null || stored.state !== 'active') return reject('invalid_credentials', 'credential_not_active');
  // `owner` is the credential's own user; verifyAssertion checks that the userHandle names it.
  if (owner === null || owner.id !== stored.userId) return reject('invalid_credentials', 'user_handle_mismatch');
  if (owner.state !== 'active') return reject('invalid_credentials', 'user_not_active');
  if (current !== undefined && current.userId !== owner.id) return reject('invalid_credentials', 'another_user');
  if (mode === 'step_up' && challenge.userId !== owner.id) return reject('invalid_credentials', 'another_user');
  const verified = await verifyAssertion(kernel.runtime.crypto, credential, raw, stored, {
    challengeDigest: challengeDigestBytes(challenge),
    origins: kernel.config.allowedOrigins,
    rpId: kernel.config.rp.id,
  });
  if (!verified.ok) return reject('invalid_credentials', verified.reason);
  actor = { type: 'user', userId: owner.id };
  const claim = { challengeId: challenge.id, expectedVersion: challenge.version, purpose } as const;
  if (verified.value.counterRegressed) {
    const quarantined = await kernel.store.quarantineCredentialAuthentication({
      claim,
      at,
      credentialId: stored.id,
      audits: [
        kernel.audit.event(exchange, at, {
          actor,
          action: 'credential.quarantined',
          target: { type: 'credential', id: stored.id },
          outcome: 'denied',
          reasonCode: 'counter_regression',
        }),
      ],
    });
    if (quarantined.ok) throw new IdentityError('invalid_credentials');
    await endFailedCeremony(kernel, exchange, at, challenge, actor);
    // A concurrent finish of this same ceremony won (and moved the counter to this assertion's
    // value): a lost race on the ceremony, answered like any other loser, not a clone.
    throw new IdentityError(assertionFailure(quarantined.code));
  }
  const issued = sessions.mint({
    userId: owner.id,
    assurance: mode === 'step_up' ? 'step_up' : 'passkey',
    authenticationMethod: 'passkey',
    authenticatedAt: at,
    lifetimes: {
      idleSeconds: kernel.config.lifetimes.sessionIdleSeconds,
      absoluteSeconds: kernel.config.lifetimes.sessionAbsoluteSeconds,
    },
    ...labels(body, current),
    ...(current === undefined ? {} : { predecessor: current }),
  });
  const audits = [
    kernel.audit.event(exchange, at, {
      actor,
      action: 'credential.authenticated',
      target: { type: 'credential', id: stored.id },
      reasonCode: mode,
    }),
  ];
  if (current !== undefined) {
    audits.push(
      kernel.audit.event(exchange, at, {
        actor,
        action: 'session.rotated',
        target: { type: 'session', id: current.id },
        reasonCode: mode,
      }),
    );
  }
  const result = await kernel.store.completeCredentialAuthentication({
    claim,
    at,
    credentialId: stored.id,
    expectedCredentialVersion: stored.version,
    signCount: verified.value.signCount,
    backedUp: verified.value.backedUp,
    session: issued.session,
    rotateFrom: current === undefined ? null : { sessionId: current.id, expectedVersion: current.version },
    audits,
    rejection: {
      failureReason: 'webauthn_store_rejected',
      audits: [ceremonyRejectedAudit(kernel, exchange, at, challenge, actor, 'webauthn_store_rejected')],
    },
  });
  if (!result.ok) {
    await endFailedCeremony(kernel, exchange, at, challenge, actor);
    throw new IdentityError(assertionFailure(result.code));
  }
  return { issued, session: result.value.session };
}

function labels(body: { deviceLabel?: string; devicePlatform?: string }, current: SessionRecord | undefined) {
  const label = body.deviceLabel ?? current?.label ?? undefined;
  const platform = body.devicePlatform ?? current?.platform ?? undefined;
  return { ...(label === undefined ? {} : { label }), ...(platform === undefined ? {} : { platform }) };
}

function assertionFailure(code: StoreErrorCode): IdentityErrorCode {
  if (code === 'session_not_active' || code === 'session_expired') return 'invalid_credentials';
  return mapStoreError(code, 'identity');
}
