import type { IdentityCall, RequestFacts } from '../context/identity-call.js';
import { IdentityError } from '../errors/identity.errors.js';
import { mapStoreError } from '../errors/store.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { storeRead } from '../http/route-kit.js';
import {
  credentialRefusal,
  type IdentitySessions,
  type MintedSession,
  type SessionLabels,
} from '../sessions/session.service.js';
import { AdministrativeRecoveryTickets } from './admin-recovery.tickets.js';
import {
  generateRecoveryCodes,
  legacyRecoveryCodeMatches,
  parseRecoveryCode,
  recoveryCodeDigests,
  type RecoveryCodeParts,
} from './recovery-tokens.js';
import type { RecoveryCodeRecord } from '../store/identity-records.js';

/** A digest no code matches, checked when a legacy code's selector is unknown. */
const UNKNOWN_CODE_DIGEST = (keyVersion: string) =>
  ({ algorithm: 'hmac-sha256', encoded: 'A'.repeat(43), keyVersion }) as const;

/**
 * The recovery domain (routes 16–20, identity-http §4.1, identity-model §5.6): replacing the
 * recovery codes (step-up, generation CAS; ten new codes shown once), using one code for a
 * restricted session (a wrong secret consumes nothing; one winner), and administrative recovery
 * tickets ({@link AdministrativeRecoveryTickets}).
 *
 * @example
 * const { generation, codes } = await recovery.replaceCodes(call, null);
 */
export class IdentityRecovery {
  /** Routes 18–20. */
  readonly tickets: AdministrativeRecoveryTickets;

  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
  ) {
    this.tickets = new AdministrativeRecoveryTickets(kernel, sessions);
  }

  /** Route 16: step-up, then ten new codes replacing the current generation (if it is still `expectedGeneration`). */
  async replaceCodes(
    call: IdentityCall,
    expectedGeneration: number | null,
  ): Promise<{ generation: number; codes: readonly string[] }> {
    const { context, at } = call;
    this.sessions.requireStep(context);
    const userId = context.principal.id;
    const { codes, rows } = generateRecoveryCodes(this.kernel.runtime, this.kernel.keys.recoveryPepper);
    const result = await this.kernel.store.replaceRecoveryCodes({
      userId,
      expectedGeneration,
      codes: rows,
      at,
      audit: this.kernel.audit.event(call.exchange, at, {
        actor: { type: 'user', userId },
        action: 'recovery.codes_replaced',
        target: { type: 'user', id: userId },
      }),
    });
    if (!result.ok) throw new IdentityError(mapStoreError(result.code, 'identity'));
    return { generation: result.value.generation, codes };
  }

  /** Route 17: one code for a restricted session; every code problem is 401 `invalid_credentials`. */
  async useCode(facts: RequestFacts, code: string, labels: SessionLabels): Promise<MintedSession> {
    const { kernel } = this;
    const { at } = facts;
    const parts = parseRecoveryCode(code);
    if (parts === undefined) throw new IdentityError('invalid_credentials');
    const stored = await this.findCode(parts);
    if (stored === null) throw new IdentityError('invalid_credentials');
    if (stored.state !== 'active') throw new IdentityError('invalid_credentials');
    const issued = this.sessions.mintRestricted(stored.userId, 'recovery_code', at, labels);
    const result = await kernel.store.consumeRecoveryCode({
      codeId: stored.id,
      expectedVersion: stored.version,
      at,
      session: issued.session,
      audit: kernel.audit.event(facts.exchange, at, {
        actor: { type: 'user', userId: stored.userId },
        action: 'recovery.code_used',
        target: { type: 'user', id: stored.userId },
      }),
    });
    if (!result.ok) throw credentialRefusal(result.code);
    return { issued, session: result.value.session };
  }

  /**
   * The stored code a presented one names: by its keyed digest under every recovery pepper
   * version (one indexed read), or, for a code of the earlier format, by its selector and then a
   * constant-time digest check (an unknown selector costs the same digest work as a known one).
   */
  private async findCode(parts: RecoveryCodeParts): Promise<RecoveryCodeRecord | null> {
    const { store, keys } = this.kernel;
    const selector = parts.legacySelector;
    if (selector === undefined)
      return storeRead(() => store.findRecoveryCodeByDigests(recoveryCodeDigests(keys.recoveryPepper, parts.secret)));
    const stored = await storeRead(() => store.findRecoveryCodeBySelector(selector));
    const digest = stored?.secretDigest ?? UNKNOWN_CODE_DIGEST(keys.recoveryPepper.current.version);
    const matches = legacyRecoveryCodeMatches(keys.recoveryPepper, selector, parts.secret, digest);
    return stored !== null && matches ? stored : null;
  }
}
