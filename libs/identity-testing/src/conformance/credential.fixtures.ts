import type {
  AuditEventInput,
  ChallengeClaim,
  ChallengePurpose,
  ChallengeRecord,
  CredentialRecord,
  IdentityStore,
  NewCredential,
  NewRecoveryCode,
  RejectionAudit,
} from '@tessera/identity';
import { newTestChallenge, newTestCredential, newTestRecoveryCodes } from '../identity-test.credentials.js';
import { newTestSession, testAuditEvent } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

type RegistrationInput = Parameters<IdentityStore['completeCredentialRegistration']>[0];
type AuthenticationInput = Parameters<IdentityStore['completeCredentialAuthentication']>[0];

/**
 * Ceremony, passkey and recovery-code helpers over a {@link ConformanceWorld}: challenges created
 * through the store, completion inputs with their success and rejection audits, and a few counts.
 */
export class CredentialFixtures {
  constructor(private readonly world: ConformanceWorld) {}

  /** A pending challenge created through the store at the current instant. */
  async challenge(over: { purpose?: ChallengePurpose; userId?: string | null; ttlSeconds?: number } = {}) {
    const at = this.world.clock.now();
    const challenge = newTestChallenge({ at, ...over });
    return unwrap(await this.world.store.createChallenge({ challenge, at, audits: [] }));
  }

  claim(challenge: ChallengeRecord): ChallengeClaim {
    return { challengeId: challenge.id, expectedVersion: challenge.version, purpose: challenge.purpose };
  }

  /** An audit by `userId` (or the system) at the current instant. */
  audit(action: string, userId: string | null, target?: { type: string; id: string }): AuditEventInput {
    return testAuditEvent({
      action,
      at: this.world.clock.now(),
      actor: userId === null ? { type: 'system' } : { type: 'user', userId },
      target: target ?? null,
    });
  }

  /** The `webauthn.ceremony_rejected` audit of a store rejection of `challenge`. */
  rejection(challenge: ChallengeRecord, failureReason = 'webauthn_store_rejected'): RejectionAudit {
    const audit = this.audit('webauthn.ceremony_rejected', null, { type: 'challenge', id: challenge.id });
    return { failureReason, audits: [{ ...audit, outcome: 'failed', reasonCode: failureReason }] };
  }

  /** A registration completion of `credential` (a new one for `userId` unless given). */
  registration(
    challenge: ChallengeRecord,
    userId: string,
    over: { credential?: NewCredential; requireNoCredential?: boolean } = {},
  ): RegistrationInput {
    const credential = over.credential ?? newTestCredential({ userId });
    return {
      claim: this.claim(challenge),
      at: this.world.clock.now(),
      credential,
      requireNoCredential: over.requireNoCredential ?? false,
      audits: [this.audit('credential.registered', userId, { type: 'credential', id: credential.id })],
      rejection: this.rejection(challenge),
    };
  }

  /** A registered active passkey of `userId`. */
  async passkey(userId: string, over: Partial<NewCredential> = {}): Promise<CredentialRecord> {
    const challenge = await this.challenge({ userId });
    const credential = newTestCredential({ userId, ...over });
    return unwrap(
      await this.world.store.completeCredentialRegistration(this.registration(challenge, userId, { credential })),
    );
  }

  /** A sign-in completion with `credential` for its owner: a new passkey session, counter + 1. */
  authentication(challenge: ChallengeRecord, credential: CredentialRecord, over: Partial<AuthenticationInput> = {}) {
    const at = this.world.clock.now();
    const session = newTestSession({ userId: credential.userId, at });
    const input: AuthenticationInput = {
      claim: this.claim(challenge),
      at,
      credentialId: credential.id,
      expectedCredentialVersion: credential.version,
      signCount: credential.signCount + 1,
      backedUp: credential.backedUp,
      session,
      rotateFrom: null,
      audits: [this.audit('session.created', credential.userId, { type: 'session', id: session.id })],
      rejection: this.rejection(challenge),
      ...over,
    };
    return input;
  }

  /** A first (or next) generation of 10 codes for `userId`. */
  async codes(userId: string): Promise<{ generation: number; codes: NewRecoveryCode[] }> {
    const codes = newTestRecoveryCodes();
    const audit = this.audit('recovery.codes_replaced', userId, { type: 'user', id: userId });
    const at = this.world.clock.now();
    const replaced = unwrap(
      await this.world.store.replaceRecoveryCodes({ userId, expectedGeneration: null, codes, at, audit }),
    );
    return { generation: replaced.generation, codes };
  }

  /** How many of the listed challenges are in `state`. */
  challengesIn(state: ChallengeRecord['state'], challenges: ChallengeRecord[]): Promise<number> {
    const ids = challenges.map((c) => c.id);
    return this.world.rows.count('challenges', `state = ? and id in (${ids.map(() => '?').join(', ')})`, [
      state,
      ...ids,
    ]);
  }
}
