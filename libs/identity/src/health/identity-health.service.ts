import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IdentityKernel } from '../identity-kernel.js';
import { IDENTITY_MODULE_OPTIONS, type IdentityModuleOptions } from '../identity.module-definition.js';
import { IdentityService } from '../identity.service.js';
import { IDENTITY_KERNEL } from '../identity.tokens.js';
import { rerunKnownAnswers } from '../runtime/identity-readiness.check.js';
import type { SchemaVersionState } from '../store/identity-store.port.js';
import { resolveHealthSettings, type IdentityHealthSettings } from './identity-health.options.js';

/** Ledger states this build keeps serving on. */
const SERVING_SCHEMA: ReadonlySet<SchemaVersionState> = new Set(['current', 'newer']);

/** One readiness check: passed, failed (an error or a wrong answer), or no answer within the bound. */
export type HealthCheckOutcome = 'ok' | 'failed' | 'timeout';

/** The checks of one readiness probe. */
export interface IdentityReadinessChecks {
  /** A round trip to the database. */
  readonly database: HealthCheckOutcome;
  /**
   * The identity migration ledger holds every migration of this build with its checksum (newer
   * migrations of a later build may follow: the rollout keeps older instances serving).
   */
  readonly migrations: HealthCheckOutcome;
  /** The startup checks passed at boot and the known-answer self-tests pass again now. */
  readonly selfTests: HealthCheckOutcome;
  /** The rate limiter could decide now. */
  readonly rateLimiter: HealthCheckOutcome;
}

/** `GET /ready`'s body: `ready` (200) when every check is `ok`, else `unavailable` (503). */
export interface IdentityReadiness {
  readonly status: 'ready' | 'unavailable';
  readonly checks: IdentityReadinessChecks;
}

/** `GET /live`'s body. */
export interface IdentityLiveness {
  readonly status: 'live';
}

/**
 * Liveness and readiness of the identity platform for operators (`GET /live`, `GET /ready`).
 * `live()` touches nothing. `ready()` runs every check at once under one bound
 * (`health.timeoutMs`): a check still waiting then is `timeout`, so a frozen database answers
 * `unavailable` in time instead of hanging the probe. Concurrent probes share one run. Answers
 * carry check names and outcomes only, never an error text or a configuration value.
 *
 * @example
 * const readiness = await app.get(IdentityHealth).ready();
 * if (readiness.status !== 'ready') console.warn(readiness.checks);
 */
@Injectable()
export class IdentityHealth {
  private readonly logger = new Logger('IdentityHealth');
  /** The validated `health` option. */
  readonly settings: IdentityHealthSettings;
  private running: Promise<IdentityReadiness> | undefined;
  private wasReady: boolean | undefined;

  constructor(
    @Inject(IDENTITY_KERNEL) private readonly kernel: IdentityKernel,
    private readonly identity: IdentityService,
    @Inject(IDENTITY_MODULE_OPTIONS) options: IdentityModuleOptions,
  ) {
    this.settings = resolveHealthSettings(options.health);
  }

  /** The process is up: always `live`, whatever the database does. */
  live(): IdentityLiveness {
    return { status: 'live' };
  }

  /** Runs the readiness checks within the bound (joins a run already in progress). */
  ready(): Promise<IdentityReadiness> {
    this.running ??= this.probe().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async probe(): Promise<IdentityReadiness> {
    const { store, rateLimiter, runtime } = this.kernel;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.settings.timeoutMs);
    });
    const bounded = (check: () => Promise<boolean>): Promise<HealthCheckOutcome> =>
      Promise.race([
        Promise.resolve()
          .then(check)
          .then(
            (passed): HealthCheckOutcome => (passed ? 'ok' : 'failed'),
            (): HealthCheckOutcome => 'failed',
          ),
        deadline,
      ]);
    try {
      const [database, migrations, limiter] = await Promise.all([
        bounded(async () => (await store.inspectDatabaseEngine()) !== undefined),
        // A newer build's additive migrations leave this one serving (its start would refuse them).
        bounded(async () => SERVING_SCHEMA.has(await store.inspectSchemaVersion())),
        bounded(async () => {
          await rateLimiter.probe();
          return true;
        }),
      ]);
      const selfTests: HealthCheckOutcome = this.identity.started && rerunKnownAnswers(runtime) ? 'ok' : 'failed';
      const checks = { database, migrations, selfTests, rateLimiter: limiter };
      return this.report(checks);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Logs transitions only (names and outcomes), so a steady probe stays quiet. */
  private report(checks: IdentityReadinessChecks): IdentityReadiness {
    const ready = Object.values(checks).every((outcome) => outcome === 'ok');
    if (!ready && this.wasReady !== false) {
      const failing = Object.entries(checks).filter(([, outcome]) => outcome !== 'ok');
      this.logger.warn(`Not ready: ${failing.map(([name, outcome]) => `${name} ${outcome}`).join(', ')}`);
    } else if (ready && this.wasReady === false) {
      this.logger.log('Ready again');
    }
    this.wasReady = ready;
    return { status: ready ? 'ready' : 'unavailable', checks };
  }
}
