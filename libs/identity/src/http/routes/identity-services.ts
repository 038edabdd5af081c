import { IdentityDevice } from '../../device/identity-device.service.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { IdentityInvitationLifecycle } from '../../invitations/invitation-lifecycle.service.js';
import { IdentityOrganizations } from '../../organizations/organization.service.js';
import { IdentityPasskeys } from '../../passkeys/passkey.service.js';
import { IdentityRecovery } from '../../recovery/recovery.service.js';
import { IdentityServiceIdentities } from '../../service-identities/service-identity.service.js';
import { IdentitySessions } from '../../sessions/session.service.js';

/** The domain services identity routes call (one per domain), built once per router. */
export interface IdentityServices {
  readonly sessions: IdentitySessions;
  readonly passkeys: IdentityPasskeys;
  readonly recovery: IdentityRecovery;
  readonly invitations: IdentityInvitationLifecycle;
  readonly organizations: IdentityOrganizations;
  readonly serviceIdentities: IdentityServiceIdentities;
  readonly device: IdentityDevice;
}

/**
 * Builds the domain services over one kernel; every one shares the sessions service (step-up rule,
 * session minting).
 *
 * @example
 * const services = identityServices(kernel);
 */
export function identityServices(kernel: IdentityKernel): IdentityServices {
  const sessions = new IdentitySessions(kernel);
  return {
    sessions,
    passkeys: new IdentityPasskeys(kernel, sessions),
    recovery: new IdentityRecovery(kernel, sessions),
    invitations: new IdentityInvitationLifecycle(kernel, sessions),
    organizations: new IdentityOrganizations(kernel, sessions),
    serviceIdentities: new IdentityServiceIdentities(kernel, sessions),
    device: new IdentityDevice(kernel),
  };
}
