/**
 * The external consumer test (`npm run test:consumer`, run by CI): packs every package, installs
 * the tarballs into a brand-new Nest app outside the repository, writes the README's "Use it in
 * your app" code into it verbatim, compiles it, boots it on PGlite and drives it over HTTP.
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/consumer/*.consumer-spec.ts'],
  maxWorkers: 1,
  testTimeout: 120000,
};
