import { generateAuthenticationOptions } from '@simplewebauthn/server';
import type { IdentityCall, RequestFacts } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import { mapStoreError } from '../errors/store.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { isUuidV7 } from '../http/request-fields.js';
import { storeRead } from '../http/route-kit.js';
import type { IdentitySessions } from '../sessions/session.service.js';
import type { CredentialRecord } from '../store/identity-records.js';
import { startCeremony } from './ceremony.js';
import { finishAssertion, SIGN_IN_SOURCE, stepUpSource, type AssertionResult } from './passkey-assertion.js';
import {
  finishRegistration,
  startRegistration,
  type RegistrationFinish,
  type RegistrationStart,
} from './passkey-registration.js';

type AuthenticatorTransport = 'usb' | 'nfc' | 'ble' | 'internal' | 'hybrid' | 'smart-card' | 'cable';

/**
 * The passkeys domain (routes 2–7 and 13–15, identity-http §4.1, identity-model §5.2–5.3):
 * registration under the registration gate, username-free sign-in, step-up, and managing the
 * caller's passkeys (another user's or a non-active passkey is 404; revoking needs step-up).
 *
 * @example
 * const passkeys = new IdentityPasskeys(kernel, sessions);
 */
export class IdentityPasskeys {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
  ) {}

  /** Route 2. */
  startRegistration(call: IdentityCall): Promise<RegistrationStart> {
    return startRegistration(this.kernel, call);
  }

  /** Route 3, with the finish body as strict JSON. */
  finishRegistration(call: IdentityCall, json: unknown): Promise<RegistrationFinish> {
    return finishRegistration(this.kernel, call, json);
  }

  /** Route 4: a username-free sign-in ceremony with an empty `allowCredentials`. */
  async startSignIn(facts: RequestFacts): Promise<RegistrationStart> {
    const { ceremonyId, challenge } = await startCeremony(this.kernel, facts.exchange, facts.at, {
      purpose: 'webauthn_authentication',
      userId: null,
      source: SIGN_IN_SOURCE,
    });
    return { ceremonyId, publicKey: await this.options(challenge, []) };
  }

  /** Route 6: a step-up ceremony over the caller's active passkeys, bound to the current session. */
  async startStepUp(call: IdentityCall): Promise<RegistrationStart> {
    const { context } = call;
    const session = context.session;
    if (session === undefined) throw new IdentityError('authentication_required');
    const credentials = await storeRead(() => this.kernel.store.listCredentialsForUser(context.principal.id));
    const active = credentials.filter((credential) => credential.state === 'active');
    if (active.length === 0) throw new IdentityError('invalid_credentials');
    const { ceremonyId, challenge } = await startCeremony(this.kernel, call.exchange, call.at, {
      purpose: 'step_up',
      userId: context.principal.id,
      source: stepUpSource(session),
    });
    const allow = active.map((credential) => ({ id: credential.webAuthnId, transports: [...credential.transports] }));
    return { ceremonyId, publicKey: await this.options(challenge, allow) };
  }

  /** Routes 5 and 7, with the finish body as strict JSON. */
  finishAssertion(
    facts: RequestFacts,
    context: IdentityContext | undefined,
    mode: 'sign_in' | 'step_up',
    json: unknown,
  ): Promise<AssertionResult> {
    return finishAssertion(this.kernel, this.sessions, facts, context, mode, json);
  }

  /** Route 13: the caller's passkeys. */
  list(context: IdentityContext): Promise<CredentialRecord[]> {
    return storeRead(() => this.kernel.store.listCredentialsForUser(context.principal.id));
  }

  /** Route 14: renames one of the caller's active passkeys (no step-up). */
  async rename(call: IdentityCall, credentialId: string, name: string): Promise<CredentialRecord> {
    return this.mutate(call, await this.owned(call.context, credentialId), { kind: 'rename', name });
  }

  /** Route 15: revokes one of the caller's active passkeys (step-up after the ownership 404). */
  async revoke(call: IdentityCall, credentialId: string): Promise<CredentialRecord> {
    const credential = await this.owned(call.context, credentialId);
    this.sessions.requireStep(call.context);
    return this.mutate(call, credential, { kind: 'revoke' });
  }

  private async owned(context: IdentityContext, credentialId: string): Promise<CredentialRecord> {
    if (!isUuidV7(credentialId)) throw new IdentityError('request_invalid');
    const credential = await storeRead(() => this.kernel.store.findCredential(credentialId));
    if (credential === null || credential.userId !== context.principal.id || credential.state !== 'active')
      throw new IdentityError('not_found');
    return credential;
  }

  private async mutate(
    call: IdentityCall,
    credential: CredentialRecord,
    change: { kind: 'rename'; name: string } | { kind: 'revoke' },
  ): Promise<CredentialRecord> {
    const { at, context } = call;
    const result = await this.kernel.store.mutateCredential({
      credentialId: credential.id,
      userId: context.principal.id,
      expectedVersion: credential.version,
      change,
      at,
      audit: this.kernel.audit.event(call.exchange, at, {
        actor: { type: 'user', userId: context.principal.id },
        action: change.kind === 'rename' ? 'credential.renamed' : 'credential.revoked',
        target: { type: 'credential', id: credential.id },
      }),
    });
    if (result.ok) return result.value;
    if (result.code === 'not_found' || result.code === 'invalid_transition') throw new IdentityError('not_found');
    throw new IdentityError(mapStoreError(result.code, 'identity'));
  }

  private async options(challenge: Uint8Array, allowCredentials: { id: string; transports: string[] }[]) {
    return {
      ...(await generateAuthenticationOptions({
        rpID: this.kernel.config.rp.id,
        challenge: Uint8Array.from(challenge),
        timeout: this.kernel.config.lifetimes.challengeSeconds * 1000,
        allowCredentials: allowCredentials.map((credential) => ({
          id: credential.id,
          transports: credential.transports as AuthenticatorTransport[],
        })),
        userVerification: 'required',
      })),
      hints: [],
    };
  }
}
