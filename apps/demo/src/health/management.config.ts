import type { ManagementListenerOptions } from '@tessera/web';

/** Port of the management listener (`/live`, `/ready`, `/metrics`); unset or empty → none. */
export const MANAGEMENT_PORT_ENV = 'TESSERA_MANAGEMENT_PORT';
/** Interface of the management listener. @default every interface */
export const MANAGEMENT_HOST_ENV = 'TESSERA_MANAGEMENT_HOST';

/**
 * The management listener the environment asks for: `TESSERA_MANAGEMENT_PORT` (0..65535, `0` picks
 * a free port) and optionally `TESSERA_MANAGEMENT_HOST`. Unset, the probes and `/metrics` stay on
 * the public listener. An invalid port fails the start and names the variable.
 *
 * @example
 * RouterModule.forRoot({ management: managementFromEnv(process.env) })
 */
export function managementFromEnv(env: NodeJS.ProcessEnv): ManagementListenerOptions | undefined {
  const raw = env[MANAGEMENT_PORT_ENV]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new Error(`${MANAGEMENT_PORT_ENV} must be a port number from 0 to 65535`);
  }
  const host = env[MANAGEMENT_HOST_ENV]?.trim();
  return host === undefined || host === '' ? { port } : { port, host };
}
