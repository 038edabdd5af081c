import type { Provider } from '@nestjs/common';
import { Router } from './router/router.js';
import type { RouterEntry, RouterListener } from './router.options.js';

/**
 * The routers one `forRoot`/`forFeature` call contributed, with a name for conflict messages and
 * the listener that serves them.
 */
export class RouterRegistration {
  constructor(
    readonly source: string,
    readonly routers: readonly Router[],
    readonly listener: RouterListener = 'public',
  ) {}
}

let sequence = 0;

/**
 * Providers for one registration: one per router entry plus the registration itself. Tokens are
 * unique strings, so Nest never deduplicates two `forFeature` calls that look alike.
 */
export function registrationProviders(
  source: string,
  entries: readonly RouterEntry[],
  listener: RouterListener = 'public',
): Provider[] {
  const id = ++sequence;
  const tokens = entries.map((_, i) => `TesseraRouter#${id}.${i}`);
  const providers: Provider[] = entries.map((entry, i) =>
    'useValue' in entry
      ? { provide: tokens[i]!, useValue: entry.useValue }
      : { provide: tokens[i]!, useFactory: entry.useFactory, inject: entry.inject ?? [] },
  );
  providers.push({
    provide: `TesseraRouterRegistration#${id}`,
    useFactory: (...routers: unknown[]) => {
      routers.forEach((router, i) => {
        if (!(router instanceof Router)) throw new TypeError(`${source}: router entry ${i} did not produce a Router`);
      });
      return new RouterRegistration(source, routers as Router[], listener);
    },
    inject: tokens,
  });
  return providers;
}

/** Numbers `forFeature` calls for default names. */
export function nextFeatureName(): string {
  return `RouterModule.forFeature #${sequence + 1}`;
}
