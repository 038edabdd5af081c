import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';
import {
  digestCsrfToken,
  digestSessionSecret,
  generateCsrfToken,
  generateSessionToken,
} from '../tokens/secret-token.format.js';
import type { Assurance, AuthenticationMethod, SessionFederation } from '../store/identity-records.js';
import type { NewSession } from '../store/identity-store.port.js';
import type { SessionPepperRing } from './session-keys.js';
import { storedKeyedDigest } from '../tokens/keyed-digest.crypto.js';

/** Lifetimes a new session gets, in seconds. */
export interface SessionLifetimes {
  readonly idleSeconds: number;
  readonly absoluteSeconds: number;
}

/** A session ready to insert, with the two secrets only its creator ever sees. */
export interface IssuedSession {
  readonly session: NewSession;
  /** Cookie value `<sessionId>.<secret>`: goes only into the HttpOnly cookie. */
  readonly cookieToken: string;
  /** CSRF token: goes into the response body once. */
  readonly csrfToken: string;
}

/** What a new session is for. */
export interface SessionIssue {
  readonly userId: string;
  readonly assurance: Assurance;
  readonly authenticationMethod: AuthenticationMethod;
  readonly authenticatedAt: Date;
  readonly lifetimes: SessionLifetimes;
  readonly label?: string;
  readonly platform?: string;
  readonly federation?: SessionFederation;
  /** For a rotation: the family, counter and absolute expiry of the predecessor. */
  readonly predecessor?: {
    readonly familyId: string;
    readonly rotationCounter: number;
    readonly absoluteExpiresAt: Date;
  };
}

/**
 * Mints a session (identity-model §5.1): id = family id for a new family, a 32-byte secret and a
 * CSRF token, digests under the current session pepper. Rotation keeps the family, adds one to the
 * counter and never extends the absolute expiry.
 *
 * @example
 * const issued = issueSession({ clock, random }, ring, { userId, assurance: 'recovery', authenticationMethod: 'bootstrap', authenticatedAt: now, lifetimes });
 */
export function issueSession(
  runtime: { clock: IdentityClock; random: RandomSource },
  peppers: SessionPepperRing,
  issue: SessionIssue,
): IssuedSession {
  const token = generateSessionToken(runtime.clock, runtime.random);
  const csrf = generateCsrfToken(runtime.random);
  const pepper = peppers.current;
  const now = issue.authenticatedAt.getTime();
  const ownAbsolute = now + issue.lifetimes.absoluteSeconds * 1000;
  const absolute =
    issue.predecessor === undefined
      ? ownAbsolute
      : Math.min(issue.predecessor.absoluteExpiresAt.getTime(), ownAbsolute);
  const idle = Math.min(now + issue.lifetimes.idleSeconds * 1000, absolute);
  const session: NewSession = {
    id: token.selector,
    familyId: issue.predecessor?.familyId ?? token.selector,
    userId: issue.userId,
    tokenDigest: storedKeyedDigest(digestSessionSecret(pepper.key, token.secret), pepper.version),
    csrfDigest: storedKeyedDigest(digestCsrfToken(pepper.key, csrf.bytes), pepper.version),
    assurance: issue.assurance,
    authenticationMethod: issue.authenticationMethod,
    label: issue.label ?? null,
    platform: issue.platform ?? null,
    rotationCounter: issue.predecessor === undefined ? 0 : issue.predecessor.rotationCounter + 1,
    authenticatedAt: issue.authenticatedAt,
    idleExpiresAt: new Date(idle),
    absoluteExpiresAt: new Date(absolute),
    federation: issue.federation ?? null,
  };
  return { session, cookieToken: token.token, csrfToken: csrf.token };
}
