import type { IdentityKernel } from '../../identity-kernel.js';
import { IdentityPasskeys } from '../../passkeys/passkey.service.js';
import { IdentityRecovery } from '../../recovery/recovery.service.js';
import { IdentitySessions } from '../../sessions/session.service.js';

/** The domain services identity routes call (one per domain), built once per router. */
export interface IdentityServices {
  readonly sessions: IdentitySessions;
  readonly passkeys: IdentityPasskeys;
  readonly recovery: IdentityRecovery;
}

/**
 * Builds the domain services over one kernel.
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
  };
}
