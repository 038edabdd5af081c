/** Shared setup of the passkey specs that run on one app with a bootstrapped owner (not a spec itself). */
import { afterAll, beforeAll } from '@jest/globals';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { bootPasskeyApp, organizationOf, ownerWithPasskey, type PasskeyUser } from './passkey-fixtures.js';

/** One spec file's app: the bootstrap owner with a passkey session, and the organization it created. */
export interface PasskeySuite {
  readonly identity: IdentityTestApp;
  readonly owner: PasskeyUser;
  readonly organizationId: string;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that boot a passkey app (anonymous rate limits off),
 * bootstrap its owner with a passkey, hand the suite to `ready`, and close the app again.
 */
export function usePasskeySuite(ready: (suite: PasskeySuite) => void): void {
  let identity: IdentityTestApp | undefined;

  beforeAll(async () => {
    identity = await bootPasskeyApp();
    const owner = await ownerWithPasskey(identity);
    ready({ identity, owner, organizationId: await organizationOf(identity, owner.userId) });
  });
  afterAll(async () => identity?.close());
}
