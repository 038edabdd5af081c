import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { formatAddress } from '@tessera/web';
import {
  IDENTITY_MODULE_OPTIONS,
  IdentityStore,
  type IdentityEnvironment,
  type IdentityModuleOptions,
} from '@tessera/identity';

/** What the demo knows right after it started listening, for {@link startupHints}. */
export interface StartupFacts {
  /** The identity configuration's environment. */
  readonly environment: IdentityEnvironment;
  /** Where this process listens, e.g. `http://localhost:3000`. */
  readonly listenUrl: string;
  /** The identity configuration's `publicBaseUrl`: what users open (behind the proxy in production). */
  readonly publicUrl: string;
  /** Which database, in words (never its URL: it may carry a password). */
  readonly database: string;
  /** The configured bootstrap lifecycle. */
  readonly bootstrap: 'pending' | 'retired';
  /** `true` while the store holds no user, organization or bootstrap receipt (`IdentityStore.isEmpty()`). */
  readonly empty: boolean;
  /** `true` when production/staging configuration came from the environment (`identityConfigFromEnv`). */
  readonly deployed: boolean;
  /** `true` when `TESSERA_METRICS_API_KEY` is set. */
  readonly metricsKeySet: boolean;
  /** Where the management listener listens (`TESSERA_MANAGEMENT_PORT`); unset when there is none. */
  readonly managementAddress?: AddressInfo;
}

/**
 * The lines the demo logs once it listens: where it is, and what to do first: create the first
 * owner at `/identity/bootstrap` while bootstrap is pending on an empty store, say how to enable
 * bootstrap when the store is empty but bootstrap is retired, otherwise sign in at `/identity`.
 *
 * @example
 * for (const line of startupHints(await readStartupFacts(app, facts))) logger.log(line);
 */
export function startupHints(facts: StartupFacts): string[] {
  const { publicUrl } = facts;
  const secret = facts.deployed
    ? 'TESSERA_BOOTSTRAP_SECRET_REF (a reference to the secret, see docs/deployment.md)'
    : 'TESSERA_BOOTSTRAP_SECRET (16..512 chars)';
  const lines = [`Tessera demo (${facts.environment}) listening on ${facts.listenUrl} — database: ${facts.database}`];
  if (publicUrl !== facts.listenUrl) lines.push(`Public URL (through the TLS-terminating proxy): ${publicUrl}`);
  if (facts.empty && facts.bootstrap === 'pending') {
    lines.push(`First step: open ${publicUrl}/identity/bootstrap to create the first owner with the bootstrap secret`);
  } else if (facts.empty) {
    lines.push(
      `First step: no owner exists yet and bootstrap is retired; set ${secret} and restart, then open ${publicUrl}/identity/bootstrap`,
    );
  } else {
    lines.push(`First step: sign in at ${publicUrl}/identity`);
    if (facts.bootstrap === 'pending') {
      lines.push(`Bootstrap is complete: unset ${secret.split(' ')[0]} and restart to retire it`);
    }
  }
  lines.push(`Every page and the API docs: ${publicUrl}/ and ${publicUrl}/identity/docs`);
  if (!facts.deployed)
    lines.push(`Invitations are delivered to the development outbox: ${publicUrl}/identity/dev/outbox`);
  const management = facts.managementAddress;
  lines.push(
    management === undefined
      ? `Probes: ${facts.listenUrl}/live and ${facts.listenUrl}/ready (set TESSERA_MANAGEMENT_PORT to move them and /metrics off this listener)`
      : `Probes and /metrics on the management listener ${formatAddress(management)}: GET /live, GET /ready`,
  );
  if (!facts.metricsKeySet) lines.push('GET /metrics answers 401 until TESSERA_METRICS_API_KEY is set');
  return lines;
}

/**
 * Reads the configured bootstrap lifecycle, the environment and public URL from the identity
 * module's options, and whether the store is still empty (the same facts the client-config route
 * reports as `features.bootstrap`).
 *
 * @example
 * const facts = await readStartupFacts(app, { listenUrl, database, deployed, metricsKeySet });
 */
export async function readStartupFacts(
  app: INestApplication,
  known: Pick<StartupFacts, 'listenUrl' | 'database' | 'deployed' | 'metricsKeySet' | 'managementAddress'>,
): Promise<StartupFacts> {
  const { config } = app.get<IdentityModuleOptions>(IDENTITY_MODULE_OPTIONS, { strict: false });
  const store = app.get<IdentityStore>(IdentityStore, { strict: false });
  return {
    ...known,
    environment: config.environment,
    publicUrl: config.publicBaseUrl,
    bootstrap: config.bootstrap?.lifecycle ?? 'retired',
    empty: await store.isEmpty(),
  };
}
