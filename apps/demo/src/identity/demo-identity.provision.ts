import { openDatabase, runMigrations, type DatabaseOptions } from '@tessera/database';
import type { IdentityEnvironment } from '@tessera/identity';
import { IDENTITY_SCHEMA, MikroOrmIdentityStore } from '@tessera/identity-mikro-orm';

/** Options of {@link provisionIdentityDatabase}. */
export interface IdentityProvisionOptions {
  /** The database as the application opens it (same entities, migrations and migration table). */
  database: Omit<DatabaseOptions, 'migrate'>;
  /** The environment the application is configured for; only `staging` and `production` provision explicitly. */
  environment: IdentityEnvironment;
  /** The configuration's `storageNamespace`. @default `tessera_<environment>` (the configuration's default) */
  namespace?: string;
}

/** What {@link provisionIdentityDatabase} did. */
export interface IdentityProvisionResult {
  /** Migrations applied by this run, oldest first (empty when the schema was current). */
  readonly applied: readonly string[];
  /** The marker the database now carries. */
  readonly marker: { readonly environment: IdentityEnvironment; readonly namespace: string };
}

/**
 * The `provision` command of identity-model §9.7 for staging/production: applies pending
 * migrations, then writes the environment marker (environment, storage namespace) the identity
 * service verifies at start. Idempotent for the same marker; a database already provisioned for
 * another environment or namespace is refused, never overwritten.
 *
 * @example
 * await provisionIdentityDatabase({
 *   database: { url: process.env.DATABASE_URL, entities: demoEntities, migrations: { list: demoMigrations } },
 *   environment: 'production',
 * });
 */
export async function provisionIdentityDatabase(options: IdentityProvisionOptions): Promise<IdentityProvisionResult> {
  const { environment } = options;
  if (environment !== 'staging' && environment !== 'production') {
    throw new Error(
      `provision is for staging and production (got ${JSON.stringify(environment)}); development and test provision themselves at start`,
    );
  }
  const namespace = options.namespace ?? `tessera_${environment}`;
  const db = await openDatabase({ ...options.database, migrate: 'manual' });
  try {
    const applied = await runMigrations(db.orm);
    const marker = { environment, namespace };
    const result = await new MikroOrmIdentityStore(db.orm).provisionEnvironment(marker);
    if (!result.ok && result.refusal === 'schema_version') {
      throw new Error(
        `the identity migration ledger (${IDENTITY_SCHEMA}.schema_migrations) does not match this build even after migrating: a released migration was edited (checksum drift) or a newer build migrated this database; the marker was not written`,
      );
    }
    if (!result.ok) {
      const existing = await db.orm.em
        .fork()
        .getConnection()
        .execute<{ environment: string; namespace: string }[]>(
          `select environment, namespace from ${IDENTITY_SCHEMA}.environment where id`,
        )
        .catch(() => []);
      const found = existing[0];
      throw new Error(
        found === undefined
          ? `could not write the environment marker ${environment}/${namespace} (store code ${result.code}); check the namespace (^[a-z][a-z0-9_-]{2,63}$, containing "${environment}") and the database`
          : `this database is provisioned for ${found.environment}/${found.namespace}, not ${environment}/${namespace}; the marker is never overwritten: use a separate database per environment`,
      );
    }
    return { applied, marker };
  } finally {
    await db.close();
  }
}

/** An identity environment marker as stored. */
export interface IdentityEnvironmentMarker {
  readonly environment: string;
  readonly namespace: string;
}

/**
 * The environment marker of the database at `url` (`undefined` when there is none, or the
 * database cannot be read), to explain an `environment_marker` startup failure. Reads only.
 *
 * @example
 * const found = await readEnvironmentMarker({ url: process.env.DATABASE_URL!, entities: demoEntities });
 */
export async function readEnvironmentMarker(
  database: Pick<DatabaseOptions, 'url' | 'entities'>,
): Promise<IdentityEnvironmentMarker | undefined> {
  let db: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    db = await openDatabase({ ...database, migrate: 'manual' });
    const rows = await db.orm.em
      .fork()
      .getConnection()
      .execute<IdentityEnvironmentMarker[]>(
        `select environment, namespace from ${IDENTITY_SCHEMA}.environment where id`,
      );
    return rows[0];
  } catch {
    return undefined;
  } finally {
    await db?.close();
  }
}

/**
 * What to do when the identity service refused the database's environment marker: `expected` is
 * what the app is configured for, `found` what the database was provisioned for.
 *
 * @example
 * console.error(environmentMarkerAdvice(await readEnvironmentMarker(url), { environment: 'development', namespace: 'tessera_development' }));
 */
export function environmentMarkerAdvice(
  found: IdentityEnvironmentMarker | undefined,
  expected: IdentityEnvironmentMarker,
): string {
  const configured = `${expected.environment}/${expected.namespace}`;
  if (found === undefined) {
    return `This database carries no identity environment marker (or could not be read): for ${configured}, run \`npm run migrate\` then \`npm run provision\` against it with the same DATABASE_URL, NODE_ENV and TESSERA_STORAGE_NAMESPACE (docs/deployment.md).`;
  }
  const provisioned = `${found.environment}/${found.namespace}`;
  if (
    found.environment !== expected.environment &&
    (found.environment === 'production' || found.environment === 'staging')
  ) {
    return `This database is provisioned for ${provisioned}, but the demo started as ${configured}: start it with NODE_ENV=${found.environment} and the variables of docs/deployment.md (TESSERA_PUBLIC_BASE_URL, TESSERA_RP_ID, the secret references, ...), or point DATABASE_URL at a ${expected.environment} database. The marker is never overwritten.`;
  }
  return `This database is provisioned for ${provisioned}, but the demo is configured for ${configured}: set TESSERA_ENVIRONMENT/TESSERA_STORAGE_NAMESPACE to match, or point DATABASE_URL at the database of ${configured}. The marker is never overwritten.`;
}
