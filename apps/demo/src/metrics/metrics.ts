import { Controller, Get } from '@nestjs/common';
import {
  ApiKeyAuthenticationProvider,
  CurrentCorePrincipal,
  RequireCorePermission,
  requireCorePermission,
  sha256Hex,
  type CorePrincipal,
} from '@tessera/core';
import { Router } from '@tessera/web';

/** Environment variable holding the metrics API key; unset, every metrics request answers 401. */
export const METRICS_KEY_ENV = 'TESSERA_METRICS_API_KEY';

/**
 * API-key provider for the metrics endpoints: one key from the environment, granted `metrics.read`.
 * Only its SHA-256 digest is kept in memory.
 */
export function metricsKeyProvider(env: NodeJS.ProcessEnv = process.env): ApiKeyAuthenticationProvider {
  const key = env[METRICS_KEY_ENV];
  if (!key) return new ApiKeyAuthenticationProvider({ resolve: async () => null }); // fail closed: no key is valid
  return new ApiKeyAuthenticationProvider({
    keys: [
      {
        digest: sha256Hex(key),
        principal: { kind: 'api_key', id: 'metrics', roles: [], permissions: ['metrics.read'] },
      },
    ],
  });
}

/** `GET /metrics` (radix, plain text) behind `metrics.read`: no key → 401, a key without it → 403. */
export function metricsRouter(provider: ApiKeyAuthenticationProvider, startedAt: number): Router {
  return new Router().get('/metrics', requireCorePermission('metrics.read', provider), (exchange) =>
    exchange.respond({ body: `process_uptime_seconds ${Math.round((Date.now() - startedAt) / 1000)}\n` }),
  );
}

/** The same permission on a Nest controller: `GET /metrics/whoami`. */
@Controller('metrics')
export class MetricsController {
  @Get('whoami')
  @RequireCorePermission('metrics.read')
  whoami(@CurrentCorePrincipal() principal: CorePrincipal): { kind: string; id: string } {
    return { kind: principal.kind, id: principal.id };
  }
}
