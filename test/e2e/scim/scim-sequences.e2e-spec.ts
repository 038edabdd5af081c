import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { loadSequences, replaySequence } from './scim-sequence.runner.js';

/**
 * The request sequences Okta's and Microsoft Entra ID's provisioning services send (from their
 * published SCIM documentation), replayed over HTTP against the identity module on the real
 * database: each file under `sequences/` is one client's recorded run, in its own tenant.
 */
describe('recorded identity-provider SCIM sequences', () => {
  let identity: IdentityTestApp;

  // Booting on embedded PGlite next to other suites can take longer than the 30 s default.
  beforeAll(async () => {
    identity = await bootIdentityApp({}, new Date().toISOString());
  }, 120_000);
  afterAll(() => identity.close());

  for (const { file, sequence } of loadSequences()) {
    it(`${file}: ${sequence.name}`, async () => {
      await replaySequence(identity, sequence);
    });
  }
});
