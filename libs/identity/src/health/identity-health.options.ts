import { IdentityConfigError } from '../errors/identity-boot.errors.js';

/**
 * The readiness probe (`IdentityModule.forRoot({ health })`): `GET /ready` answers within
 * `timeoutMs` whatever the database does; `GET /live` never waits on anything.
 *
 * @example
 * IdentityModule.forRoot({ config, store, health: { timeoutMs: 1500 } })
 */
export interface IdentityHealthOptions {
  /**
   * Bound of one readiness probe, 100..30000 ms: a check that has not answered by then is reported
   * `timeout` and the probe answers 503. Keep the probe's own timeout (Kubernetes `timeoutSeconds`)
   * above it.
   *
   * @default 2000
   */
  readonly timeoutMs?: number;
  /**
   * `false` serves neither `GET /live` nor `GET /ready` (for a host with its own routes there;
   * `IdentityHealth` still answers in code).
   *
   * @default true
   */
  readonly routes?: boolean;
}

/** The validated health options. */
export interface IdentityHealthSettings {
  readonly timeoutMs: number;
  readonly routes: boolean;
}

/**
 * Validates the `health` module option, failing closed at startup on an out-of-range bound.
 *
 * @example
 * const { timeoutMs } = resolveHealthSettings(options.health);
 */
export function resolveHealthSettings(options: IdentityHealthOptions | undefined): IdentityHealthSettings {
  const timeoutMs = options?.timeoutMs ?? 2000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 30_000) {
    throw new IdentityConfigError('health', 'health.timeoutMs must be an integer between 100 and 30000');
  }
  return { timeoutMs, routes: options?.routes ?? true };
}
