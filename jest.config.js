/** Jest 30 in ESM mode (NestJS 12 is ESM-only); TypeScript is compiled by @swc/jest with .swcrc. */
const tessera = {
  '^@tessera/web$': '<rootDir>/libs/web/src/index.ts',
  '^@tessera/viewset$': '<rootDir>/libs/viewset/src/index.ts',
  '^@tessera/core$': '<rootDir>/libs/core/src/index.ts',
  '^@tessera/database$': '<rootDir>/libs/database/src/index.ts',
  '^@tessera/identity$': '<rootDir>/libs/identity/src/index.ts',
  '^@tessera/identity-mikro-orm$': '<rootDir>/libs/identity-mikro-orm/src/index.ts',
  '^@tessera/identity-testing$': '<rootDir>/libs/identity-testing/src/index.ts',
};

/**
 * Per test and hook. Embedded PGlite runs every statement of a worker on one WebAssembly backend:
 * under `--maxWorkers=2` on two cores an app boot (migrations included) can pass 30 s, so the
 * embedded default is 90 s; on a PostgreSQL server (`DATABASE_URL`) 60 s (an app boot on a fresh
 * database passed 30 s once, on a CI machine shared with a browser session). A bound on a hang,
 * never a timing assertion.
 */
/* global process */
const testTimeout = process.env.DATABASE_URL ? 60_000 : 90_000;

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleNameMapper: { ...tessera, '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  setupFiles: ['reflect-metadata'],
  setupFilesAfterEnv: ['<rootDir>/test/support/openapi/openapi-response-validation.setup.ts'],
  testTimeout,
};
