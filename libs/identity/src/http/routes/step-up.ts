import type { IdentityContext } from '../../context/identity-context.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { IdentitySessions } from '../../sessions/session.service.js';

/** Transitional: the step-up rule of {@link IdentitySessions} for families not yet in a table. */
export function requireStep(kernel: IdentityKernel, context: IdentityContext): void {
  new IdentitySessions(kernel).requireStep(context);
}
