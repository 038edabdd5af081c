/**
 * Browser journeys (`npm run test:browser`): the built demo in its own process, driven by headless
 * Chromium through playwright-core. One worker: the journeys share one app and run in order.
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/browser/*.browser-spec.ts'],
  globalSetup: '<rootDir>/test/browser/support/global-setup.ts',
  maxWorkers: 1,
  testTimeout: 120000,
};
