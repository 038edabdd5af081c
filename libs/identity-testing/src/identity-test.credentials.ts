import { randomBytes } from 'node:crypto';
import type { ChallengePurpose, NewChallenge, NewCredential, NewRecoveryCode } from '@tessera/identity';
import { testBase64Url, testDigest, testUuidV7 } from './identity-test.rows.js';

/**
 * A pending challenge to insert, created at `at` (5 minutes, or 15 for an `account_recovery`
 * ticket, which also gets the user binding digest the schema requires).
 *
 * @example
 * const challenge = newTestChallenge({ at: clock.now(), purpose: 'step_up', userId });
 */
export function newTestChallenge(input: {
  at: Date;
  purpose?: ChallengePurpose;
  userId?: string | null;
  organizationId?: string | null;
  ttlSeconds?: number;
}): NewChallenge {
  const purpose = input.purpose ?? 'webauthn_registration';
  const ticket = purpose === 'account_recovery';
  const ttlSeconds = input.ttlSeconds ?? (ticket ? 900 : 300);
  return {
    id: testUuidV7(input.at),
    purpose,
    challengeDigest: testDigest(),
    bindingDigest: ticket ? null : testBase64Url(),
    payloadDigest: ticket ? null : testBase64Url(),
    userBindingDigest: ticket ? testBase64Url() : null,
    userId: input.userId ?? null,
    organizationId: input.organizationId ?? null,
    expiresAt: new Date(input.at.getTime() + ttlSeconds * 1000),
  };
}

/**
 * A passkey to register for `userId`: a random 16-byte WebAuthn id, a random stand-in for the
 * COSE key, counter 0, backup eligible but not backed up, transports `internal` and `hybrid`.
 *
 * @example
 * const credential = newTestCredential({ userId, webAuthnId: existing.webAuthnId });
 */
export function newTestCredential(input: { userId: string } & Partial<NewCredential>): NewCredential {
  return {
    id: testUuidV7(),
    webAuthnId: testBase64Url(16),
    name: 'Test passkey',
    publicKey: new Uint8Array(randomBytes(77)),
    signCount: 0,
    backupEligible: true,
    backedUp: false,
    transports: ['internal', 'hybrid'],
    ...input,
  };
}

/**
 * `count` recovery codes as the service stores them: a keyed digest of the secret, found by it.
 * With `legacy`, codes of the earlier `<selector>.<secret>` format: each also has an 11-character
 * public selector.
 *
 * @example
 * await store.replaceRecoveryCodes({ userId, expectedGeneration: -1, codes: newTestRecoveryCodes(), at, audit });
 */
export function newTestRecoveryCodes(count = 10, options: { legacy?: boolean } = {}): NewRecoveryCode[] {
  return Array.from({ length: count }, () => ({
    id: testUuidV7(),
    ...(options.legacy === true ? { publicSelector: testBase64Url(8) } : {}),
    secretDigest: testDigest(),
  }));
}
