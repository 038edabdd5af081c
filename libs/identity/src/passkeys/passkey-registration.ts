import { generateRegistrationOptions } from '@simplewebauthn/server';
import { IdentityError, type IdentityErrorCode } from '../errors/identity.errors.js';
import { mapStoreError } from '../errors/store.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import {
  ceremonyBindingMatches,
  ceremonyExpired,
  ceremonyRejectedAudit,
  endFailedCeremony,
  challengeDigestBytes,
  claimCeremony,
  payloadDigest,
  rejectCeremony,
  startCeremony,
} from './ceremony.js';
import { decideRegistration, type RegistrationGrant } from './registration-gate.js';
import { PASSKEY_ALGORITHMS } from './webauthn/authenticator-data.js';
import { parseRegistrationCredential } from './webauthn/credential-json.parser.js';
import { verifyRegistration } from './webauthn/webauthn.verifier.js';
import { generateRecoveryCodes } from '../recovery/recovery-tokens.js';
import type { ChallengeRecord, UserRecord } from '../store/identity-records.js';
import type { NewCredential } from '../store/identity-credential.port.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import type { IdentityCall } from '../context/identity-call.js';
import { decodeBody } from '../http/request-fields.js';
import { storeRead } from '../http/route-kit.js';
import type { CredentialRecord } from '../store/identity-records.js';
import { ceremonyIdOf, truncateUtf8 } from './passkey-assertion.js';

const PURPOSE = 'webauthn_registration';
const FINISH_FIELDS = { ceremonyId: { kind: 'uuidv7' }, credentialName: { kind: 'text', min: 1, max: 200 } } as const;

/** The options of a registration start: the ceremony id and the WebAuthn `publicKey` options. */
export interface RegistrationStart {
  readonly ceremonyId: string;
  readonly publicKey: Record<string, unknown>;
}

/** A finished registration; a restricted session's finish also returns the replacement recovery codes. */
export interface RegistrationFinish {
  readonly credential: CredentialRecord;
  readonly replacementRecoveryCodes?: readonly string[];
}

/**
 * Route 2 (identity-http §4.3): a registration ceremony under the registration gate, excluding the
 * user's non-revoked passkeys, offering ES256, EdDSA and RS256 in that order.
 *
 * @example
 * const { ceremonyId, publicKey } = await startRegistration(kernel, call);
 */
export async function startRegistration(kernel: IdentityKernel, call: IdentityCall): Promise<RegistrationStart> {
  const { exchange, at } = call;
  const grant = await decideRegistration(kernel, call.context);
  const user = await storeRead(() => kernel.store.findUser(grant.userId));
  if (user === null) throw new IdentityError('not_found');
  const credentials = await storeRead(() => kernel.store.listCredentialsForUser(user.id));
  const exclude = credentials
    .filter((credential) => credential.state !== 'revoked')
    .sort((a, b) => (a.webAuthnId < b.webAuthnId ? -1 : a.webAuthnId > b.webAuthnId ? 1 : 0));
  const { ceremonyId, challenge } = await startCeremony(kernel, exchange, at, {
    purpose: PURPOSE,
    userId: user.id,
    source: grant.source,
  });
  const publicKey = await generateRegistrationOptions({
    rpName: kernel.config.rp.name,
    rpID: kernel.config.rp.id,
    userID: new TextEncoder().encode(user.id),
    userName: userName(user),
    userDisplayName: truncateUtf8(user.displayName, 64),
    challenge: Uint8Array.from(challenge),
    timeout: kernel.config.lifetimes.challengeSeconds * 1000,
    attestationType: 'none',
    excludeCredentials: exclude.map((credential) => ({
      id: credential.webAuthnId,
      transports: [...credential.transports],
    })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    supportedAlgorithmIDs: [...PASSKEY_ALGORITHMS],
  });
  return { ceremonyId, publicKey: { ...publicKey, hints: [] } };
}

/**
 * Route 3 (identity-http §4.3): the ceremony is claimed and ended on every attempt. A restricted
 * session's finish is a recovery enrollment (identity-model §5.6): passkey, epoch + 1, every
 * session revoked, ten replacement recovery codes returned once.
 *
 * @example
 * const { credential, replacementRecoveryCodes } = await finishRegistration(kernel, call, json);
 */
export async function finishRegistration(
  kernel: IdentityKernel,
  call: IdentityCall,
  json: unknown,
): Promise<RegistrationFinish> {
  const { exchange, at, context } = call;
  const actor = { type: 'user', userId: context.principal.id } as const;
  const challenge = await claimCeremony(kernel, ceremonyIdOf(json), PURPOSE);
  const reject = (code: IdentityErrorCode, reason: string, auditReason?: string) =>
    rejectCeremony(kernel, exchange, at, challenge, { code, reason, actor, ...(auditReason ? { auditReason } : {}) });
  if (ceremonyExpired(challenge, at)) return reject('challenge_invalid', 'webauthn_challenge_expired');
  const { credential: raw, ...fields } = json as Record<string, unknown>;
  const body = decodeBody(fields, FINISH_FIELDS);
  const credential = parseRegistrationCredential(raw);
  if (body === undefined || credential === undefined) return reject('request_invalid', 'request_invalid');
  let grant: RegistrationGrant;
  try {
    grant = await decideRegistration(kernel, context);
  } catch (error) {
    if (!(error instanceof IdentityError) || error.code === 'service_unavailable') throw error;
    const policy = error.code === 'registration_not_allowed' ? 'registration_policy_rejected' : undefined;
    return reject(error.code, error.code, policy);
  }
  if (!boundTo(kernel, challenge, grant)) return reject('invalid_credentials', 'registration_binding_mismatch');
  if (!ceremonyBindingMatches(kernel, exchange, challenge)) return reject('invalid_credentials', 'ceremony_binding');
  const verified = await verifyRegistration(kernel.runtime.crypto, credential, raw, {
    challengeDigest: challengeDigestBytes(challenge),
    origins: kernel.config.allowedOrigins,
    rpId: kernel.config.rp.id,
    algorithms: PASSKEY_ALGORITHMS,
  });
  if (!verified.ok) return reject('invalid_credentials', verified.reason);
  const newCredential: NewCredential = {
    id: generateUuidV7(kernel.runtime.clock, kernel.runtime.random),
    userId: grant.userId,
    name: body.credentialName,
    ...verified.value,
  };
  return complete(kernel, call, challenge, grant, newCredential);
}

/** The registration must finish for the same user and source its start was bound to. */
function boundTo(kernel: IdentityKernel, challenge: ChallengeRecord, grant: RegistrationGrant): boolean {
  return challenge.userId === grant.userId && challenge.payloadDigest === payloadDigest(kernel, PURPOSE, grant.source);
}

async function complete(
  kernel: IdentityKernel,
  call: IdentityCall,
  challenge: ChallengeRecord,
  grant: RegistrationGrant,
  credential: NewCredential,
): Promise<RegistrationFinish> {
  const { exchange, at } = call;
  const actor = { type: 'user', userId: grant.userId } as const;
  const event = (action: string, target: { type: string; id: string }, reasonCode?: string) =>
    kernel.audit.event(exchange, at, { actor, action, target, ...(reasonCode ? { reasonCode } : {}) });
  const claim = { challengeId: challenge.id, expectedVersion: challenge.version, purpose: PURPOSE } as const;
  const rejection = {
    failureReason: 'webauthn_store_rejected',
    audits: [ceremonyRejectedAudit(kernel, exchange, at, challenge, actor, 'webauthn_store_rejected')],
  };
  const registered = event('credential.registered', { type: 'credential', id: credential.id }, grant.source);
  if (!grant.restricted) {
    const result = await kernel.store.completeCredentialRegistration({
      claim,
      at,
      credential,
      requireNoCredential: grant.source === 'federated_first_passkey',
      audits: [registered],
      rejection,
    });
    if (!result.ok) {
      await endFailedCeremony(kernel, exchange, at, challenge, actor);
      throw new IdentityError(completionFailure(result.code));
    }
    return { credential: result.value };
  }
  const { codes, rows } = generateRecoveryCodes(kernel.runtime, kernel.keys.recoveryPepper);
  const session = call.context.session!;
  const result = await kernel.store.completeRecoveryEnrollment({
    claim,
    at,
    credential,
    restrictedSessionId: session.id,
    recoveryCodes: rows,
    audits: [
      registered,
      event('recovery.codes_replaced', { type: 'user', id: grant.userId }, 'recovery_enrollment_completed'),
      event('recovery.enrollment_completed', { type: 'user', id: grant.userId }, grant.source),
    ],
    rejection,
  });
  if (!result.ok) {
    await endFailedCeremony(kernel, exchange, at, challenge, actor);
    throw new IdentityError(completionFailure(result.code));
  }
  return { credential: result.value.credential, replacementRecoveryCodes: codes };
}

/** Store rejections of a completion: no oracle for duplicates; the FED1 loser needs step-up. */
function completionFailure(code: Parameters<typeof mapStoreError>[0]): IdentityErrorCode {
  if (code === 'already_exists') return 'step_up_required';
  if (code === 'session_not_active' || code === 'session_expired') return 'invalid_credentials';
  return mapStoreError(code, 'identity');
}

/** `user.name`: the primary email when it fits in 64 UTF-8 bytes, else the user id. */
function userName(user: UserRecord): string {
  const email = user.primaryEmail;
  return email !== null && new TextEncoder().encode(email).length <= 64 ? email : user.id;
}
