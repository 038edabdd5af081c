import type { INestApplication } from '@nestjs/common';
// White-box access for the repository's own tests only: `@tessera/identity` does not export the
// kernel (it holds every pepper, key and the raw store), so the token is taken from the lib's source.
import { IDENTITY_KERNEL } from '../../libs/identity/src/identity.tokens.js';
import type { IdentityKernel } from '../../libs/identity/src/identity-kernel.js';

export type { IdentityKernel };

/** The running identity kernel (config, runtime, keys, store, limiter) of a booted test app. */
export function identityKernelOf(app: Pick<INestApplication, 'get'>): IdentityKernel {
  return app.get<IdentityKernel>(IDENTITY_KERNEL);
}
