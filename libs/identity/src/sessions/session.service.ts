import { requireDeviceScope } from '../device/device-bearer.resolver.js';
import type { IdentityCall } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import { mapStoreError, type StoreErrorCode } from '../errors/store.errors.js';
import { decideRecentPasskey } from '../guards/identity-decisions.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { AuthenticationMethod, SessionRecord, UserRecord } from '../store/identity-records.js';
import type { StoreResult } from '../store/identity-store.port.js';
import { issueSession, type IssuedSession, type SessionIssue } from './session-issuer.js';

/** Unwraps a store result, mapping failures to identity errors (identity-model §9.4). */
export function unwrap<T>(result: StoreResult<T>): T {
  if (result.ok) return result.value;
  throw new IdentityError(mapStoreError(result.code, 'identity'));
}

/**
 * A refused credential command (a code, ticket or invitation that lost a race or no longer
 * qualifies): 503 `service_unavailable` for an outage, else the same 401 `invalid_credentials`
 * as any other credential problem.
 *
 * @example
 * if (!result.ok) throw credentialRefusal(result.code);
 */
export function credentialRefusal(code: StoreErrorCode | undefined): IdentityError {
  const outage = code === 'unavailable' || code === 'internal';
  return new IdentityError(outage ? 'service_unavailable' : 'invalid_credentials');
}

/** Device labels a sign-in may carry onto its new session. */
export interface SessionLabels {
  readonly deviceLabel?: string | undefined;
  readonly devicePlatform?: string | undefined;
}

/** A minted session (its cookie and CSRF secrets) and its stored row, for the route to grant. */
export interface MintedSession {
  readonly issued: IssuedSession;
  readonly session: SessionRecord;
}

/** Authentication methods that yield a restricted (recovery-assurance) session. */
export type RestrictedMethod = Extract<
  AuthenticationMethod,
  'recovery_code' | 'administrative_recovery' | 'bootstrap' | 'invitation'
>;

/**
 * The sessions domain (routes 1 and 8–12, identity-http §4.1) and the session helpers every other
 * domain shares: the step-up rule and session minting. Revocations write their audit in the same
 * transaction. Cookies are the routes' business.
 *
 * @example
 * const sessions = new IdentitySessions(kernel);
 * sessions.requireStep(context);
 */
export class IdentitySessions {
  constructor(private readonly kernel: IdentityKernel) {}

  /**
   * Stage 10 STEP rule (identity-http §3): a passkey or step-up session authenticated within the
   * recent-passkey window, else 403 `step_up_required`.
   */
  requireStep(context: IdentityContext): void {
    const decision = decideRecentPasskey(context, this.kernel.config.lifetimes.stepUpWindowSeconds);
    if (!decision.allow) throw new IdentityError(decision.code);
  }

  /** Mints a session with the kernel's runtime and current session pepper (nothing stored yet). */
  mint(issue: SessionIssue): IssuedSession {
    return issueSession(this.kernel.runtime, this.kernel.keys.sessionPepper, issue);
  }

  /**
   * Mints a restricted session (assurance `recovery`, identity-model §5.6) of `lifetimeSeconds`
   * (default: `lifetimes.restrictedSessionSeconds`), idle and absolute alike.
   */
  mintRestricted(
    userId: string,
    method: RestrictedMethod,
    at: Date,
    labels: SessionLabels = {},
    lifetimeSeconds = this.kernel.config.lifetimes.restrictedSessionSeconds,
  ): IssuedSession {
    return this.mint({
      userId,
      assurance: 'recovery',
      authenticationMethod: method,
      authenticatedAt: at,
      lifetimes: { idleSeconds: lifetimeSeconds, absoluteSeconds: lifetimeSeconds },
      ...(labels.deviceLabel === undefined ? {} : { label: labels.deviceLabel }),
      ...(labels.devicePlatform === undefined ? {} : { platform: labels.devicePlatform }),
    });
  }

  /** The caller's user (route 1); a vanished user is 401; a device needs `identity.profile` (else 404). */
  async me(context: IdentityContext): Promise<UserRecord> {
    requireDeviceScope(context, 'identity.profile');
    const user = await this.kernel.store.findUser(context.principal.id);
    if (user === null) throw new IdentityError('authentication_required');
    return user;
  }

  /** The caller's sessions (route 8). */
  list(context: IdentityContext): Promise<SessionRecord[]> {
    return this.kernel.store.listSessionsForUser(context.principal.id);
  }

  /** Route 9: revokes the current session. */
  async logout(call: IdentityCall): Promise<void> {
    const session = currentSession(call.context);
    unwrap(
      await this.kernel.store.revokeSession({
        sessionId: session.id,
        userId: call.context.principal.id,
        reason: 'logout',
        revokedAt: call.at,
        audit: this.audit(call, 'session', session.id, 'logout'),
      }),
    );
  }

  /** Route 10: revokes one active session of the caller (anything else 404); `true` when it was the current one. */
  async revoke(call: IdentityCall, sessionId: string): Promise<boolean> {
    const userId = call.context.principal.id;
    const target = await this.kernel.store.findSession(sessionId);
    if (target === null || target.userId !== userId || target.state !== 'active') throw new IdentityError('not_found');
    const result = await this.kernel.store.revokeSession({
      sessionId,
      userId,
      reason: 'user_revoked_device',
      revokedAt: call.at,
      audit: this.audit(call, 'session', sessionId, 'user_revoked_device'),
    });
    if (!result.ok && (result.code === 'not_found' || result.code === 'session_not_active'))
      throw new IdentityError('not_found');
    unwrap(result);
    return sessionId === call.context.session?.id;
  }

  /** Routes 11–12: revokes the caller's other sessions, or all of them. */
  async revokeMany(call: IdentityCall, keepCurrent: boolean): Promise<readonly string[]> {
    const session = currentSession(call.context);
    const userId = call.context.principal.id;
    const reason = keepCurrent ? 'revoke_others' : 'revoke_all';
    const result = unwrap(
      await this.kernel.store.revokeUserSessions({
        userId,
        exceptSessionId: keepCurrent ? session.id : null,
        reason,
        revokedAt: call.at,
        audit: this.audit(call, 'user', userId, reason),
      }),
    );
    return result.revokedSessionIds;
  }

  private audit(call: IdentityCall, type: 'session' | 'user', id: string, reasonCode: string) {
    return this.kernel.audit.event(call.exchange, call.at, {
      actor: { type: 'user', userId: call.context.principal.id },
      action: 'session.revoked',
      target: { type, id },
      reasonCode,
    });
  }
}

function currentSession(context: IdentityContext): SessionRecord {
  const session = context.session;
  if (session === undefined) throw new IdentityError('authentication_required');
  return session;
}
