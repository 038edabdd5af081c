import type { Exchange } from '@tessera/web';
import type { AuditConfig } from '../config/identity.config.js';
import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';
import type { AuditActor, AuditEventInput, AuditRequest } from '../store/identity-records.js';
import { pseudonymizeClientAddress, pseudonymizeUserAgent, truncateCodePoints } from '../tokens/pseudonym.format.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { getRequestId, IDENTITY_ATTRIBUTES } from '../http/identity-exchange.js';

/** Longest audited path (identity-model §4). */
export const AUDIT_PATH_MAX_CODE_POINTS = 4096;

/** What one audit event says; id, time and request facts are filled in by {@link AuditEventBuilder}. */
export interface AuditFacts {
  readonly actor: AuditActor;
  readonly action: string;
  readonly organizationId?: string | null;
  readonly target?: { readonly type: string; readonly id: string } | null;
  readonly outcome?: 'succeeded' | 'denied' | 'failed';
  readonly reasonCode?: string | null;
}

/**
 * Builds audit events (identity-model §8.1) for commands to write in their own transaction:
 * request facts carry pseudonyms only — the client address always keyed, the user-agent omitted
 * or keyed per configuration — never a raw address, user-agent, payload or secret.
 *
 * @example
 * const audit = builder.event(exchange, at, { actor: { type: 'user', userId }, action: 'session.revoked', target: { type: 'session', id } });
 */
export class AuditEventBuilder {
  constructor(
    private readonly runtime: { clock: IdentityClock; random: RandomSource },
    private readonly auditKey: Uint8Array,
    private readonly config: AuditConfig,
  ) {}

  event(exchange: Exchange | undefined, occurredAt: Date, facts: AuditFacts): AuditEventInput {
    return {
      id: generateUuidV7(this.runtime.clock, this.runtime.random),
      actor: facts.actor,
      organizationId: facts.organizationId ?? null,
      action: facts.action,
      target: facts.target ?? null,
      outcome: facts.outcome ?? 'succeeded',
      reasonCode: facts.reasonCode ?? null,
      request: exchange === undefined ? null : this.request(exchange),
      occurredAt,
    };
  }

  private request(exchange: Exchange): AuditRequest {
    const address = exchange.attributes.get(IDENTITY_ATTRIBUTES.clientAddress) as string | undefined;
    const userAgent = exchange.header('user-agent');
    return {
      requestId: getRequestId(exchange) ?? '',
      method: exchange.method,
      path: truncateCodePoints(exchange.path, AUDIT_PATH_MAX_CODE_POINTS),
      ...(this.config.userAgent === 'pseudonymize' && userAgent !== undefined
        ? { userAgent: pseudonymizeUserAgent(this.auditKey, userAgent) }
        : {}),
      ...(address !== undefined && address !== ''
        ? { clientIpDigest: pseudonymizeClientAddress(this.auditKey, address) }
        : {}),
      trustedProxy: exchange.attributes.get(IDENTITY_ATTRIBUTES.trustedProxy) === true,
    };
  }
}
