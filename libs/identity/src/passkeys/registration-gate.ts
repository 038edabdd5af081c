import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import { decideRecentPasskey } from '../guards/identity-decisions.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { storeRead } from '../http/route-kit.js';
import type { RegistrationSource } from './ceremony.js';

/** FED1 window (identity-model §3): fixed, strictly less than 5 minutes. */
export const FEDERATED_FIRST_PASSKEY_WINDOW_SECONDS = 300;

/** Credential states that count as "has a passkey" for FED1 (identity-http §3). */
const HELD_STATES = new Set(['active', 'suspended', 'suspected_clone']);

/** The decided registration source and the session it was decided for. */
export interface RegistrationGrant {
  readonly source: RegistrationSource;
  readonly userId: string;
  /** Restricted-session sources complete as a recovery enrollment. */
  readonly restricted: boolean;
}

/**
 * The passkey registration gate of identity-http §4.3, run at start and again at finish: which
 * source the caller's session may register under, or the refusal (401
 * `authentication_required`, 403 `step_up_required`, 403 `registration_not_allowed`, 404
 * `not_found` for a missing or inactive user).
 *
 * @example
 * const grant = await decideRegistration(kernel, context);
 */
export async function decideRegistration(
  kernel: IdentityKernel,
  context: IdentityContext | undefined,
): Promise<RegistrationGrant> {
  const session = context?.session;
  if (context === undefined || context.principal.kind !== 'user' || session === undefined)
    throw new IdentityError('authentication_required');
  const userId = context.principal.id;
  const user = await storeRead(() => kernel.store.findUser(userId));
  if (user === null || user.state !== 'active') throw new IdentityError('not_found');
  switch (session.authenticationMethod) {
    case 'bootstrap':
      return { source: 'bootstrap', userId, restricted: true };
    case 'recovery_code':
    case 'administrative_recovery':
      return { source: 'recovery', userId, restricted: true };
    case 'invitation':
      return { source: await invitationSource(kernel, userId), userId, restricted: true };
    case 'passkey': {
      const decision = decideRecentPasskey(context, kernel.config.lifetimes.stepUpWindowSeconds);
      if (!decision.allow) throw new IdentityError('step_up_required');
      return { source: 'existing_account', userId, restricted: false };
    }
    case 'oidc':
    case 'saml': {
      const age = context.requestTime.getTime() - session.authenticatedAt.getTime();
      if (age < 0 || age >= FEDERATED_FIRST_PASSKEY_WINDOW_SECONDS * 1000) throw new IdentityError('step_up_required');
      const credentials = await storeRead(() => kernel.store.listCredentialsForUser(userId));
      if (credentials.some((credential) => HELD_STATES.has(credential.state)))
        throw new IdentityError('step_up_required');
      return { source: 'federated_first_passkey', userId, restricted: false };
    }
  }
}

/** Invitation enrollments obey the registration policy (identity-model §5.4). */
async function invitationSource(kernel: IdentityKernel, userId: string): Promise<RegistrationSource> {
  const policy = kernel.config.registrationPolicy;
  if (policy === 'disabled') throw new IdentityError('registration_not_allowed');
  if (policy === 'admin_only') {
    const invitation = await storeRead(() => kernel.store.findInvitationAcceptedByUser(userId));
    if (invitation === null || invitation.invitedByUserId === null) throw new IdentityError('registration_not_allowed');
  }
  return 'admin_invitation';
}
