// Shared setup of the identity benchmarks (bench/identity-session, bench/passkey, bench/audit):
// random in-memory secrets, the test-environment identity configuration on http://localhost:3000,
// and the database module of a fresh PostgreSQL database with the identity schema.
import { randomBytes } from 'node:crypto';
import { DatabaseModule } from '@tessera/database';
import { createInMemorySecretResolver, issueSession } from '@tessera/identity';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
  identityEntities,
  identityMigrations,
} from '@tessera/identity-mikro-orm';

const NAMES = [
  'SESSION_PEPPER',
  'RECOVERY_PEPPER',
  'DEVICE_PEPPER',
  'SERVICE_PEPPER',
  'AUDIT_KEY',
  'ENCRYPTION_KEY',
  'SIGNING_KEY',
];
const ref = (name) => `env:TESSERA_TEST_${name}`;

/**
 * Random secrets (or `values`, the `values` of another instance of the same deployment) and the
 * identity configuration referring to them; `bootstrapSecret` makes bootstrap pending. `extra` is
 * merged over the configuration.
 */
export function benchIdentity({ bootstrapSecret, extra = {}, values: given } = {}) {
  const values = given ?? Object.fromEntries(NAMES.map((name) => [ref(name), randomBytes(24).toString('base64url')]));
  if (bootstrapSecret !== undefined) values[ref('BOOTSTRAP_SECRET')] = bootstrapSecret;
  const config = {
    environment: 'test',
    publicBaseUrl: 'http://localhost:3000',
    rp: { id: 'localhost', name: 'bench' },
    secrets: {
      sessionPepper: { current: ref('SESSION_PEPPER') },
      recoveryPepper: { current: ref('RECOVERY_PEPPER') },
      devicePepper: { current: ref('DEVICE_PEPPER') },
      servicePepper: { current: ref('SERVICE_PEPPER') },
      auditKey: ref('AUDIT_KEY'),
      encryptionKey: ref('ENCRYPTION_KEY'),
      signingKey: ref('SIGNING_KEY'),
    },
    ...(bootstrapSecret === undefined
      ? {}
      : { bootstrap: { lifecycle: 'pending', secretRef: ref('BOOTSTRAP_SECRET') } }),
    ...extra,
  };
  return { config, values, secrets: createInMemorySecretResolver(values) };
}

/**
 * `DatabaseModule` on `url` with the identity entities and migrations (quiet); `options` adds
 * `DatabaseModule` options (e.g. `registerRequestContext: false`).
 */
export function benchDatabaseModule(url, pool, options = {}) {
  return DatabaseModule.forRoot({
    url,
    ...options,
    ...(pool === undefined ? {} : { pool }),
    entities: [...identityEntities],
    migrations: {
      list: [...identityMigrations],
      schema: IDENTITY_SCHEMA,
      tableName: IDENTITY_MIGRATIONS_TABLE,
      silent: true,
    },
  });
}

/**
 * Issues a day-long passkey session for `userId` with the app's kernel and stores it through
 * `rows` (`IdentityTestRows`): `{ cookieToken, csrfToken, session }` of `issueSession`.
 */
export async function benchPasskeySession(kernel, rows, userId) {
  const issued = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
    userId,
    assurance: 'passkey',
    authenticationMethod: 'passkey',
    authenticatedAt: new Date(),
    lifetimes: { idleSeconds: 86_400, absoluteSeconds: 86_400 },
  });
  await rows.session(issued.session);
  return issued;
}
