import type { HttpAdapterHost } from '@nestjs/core';

/** The HTTP adapter of a Nest application. */
export type HttpAdapter = NonNullable<HttpAdapterHost['httpAdapter']>;

/** What to run around the adapter's `init()`: `before` Nest's own init steps or `after` them. */
export interface AdapterInitHooks {
  before?: (adapter: HttpAdapter) => void | Promise<void>;
  after?: (adapter: HttpAdapter) => void | Promise<void>;
}

/**
 * Runs hooks when `app.init()` initialises the HTTP adapter: after the app's own `app.use` calls,
 * before Nest registers its body parsers and routes. `init$` replays, so this works under
 * `NestFactory.create` (adapter already set) and `Test.createTestingModule` (set later).
 * Returns the unsubscribe function.
 *
 * @example
 * const stop = onHttpAdapterInit(adapterHost, { after: (adapter) => adapter.use(middleware) });
 */
export function onHttpAdapterInit(adapterHost: HttpAdapterHost, hooks: AdapterInitHooks): () => void {
  const subscription = adapterHost.init$.subscribe(() => {
    const adapter = adapterHost.httpAdapter;
    if (adapter === undefined) return;
    const original = adapter.init?.bind(adapter);
    adapter.init = async () => {
      await hooks.before?.(adapter);
      await original?.();
      await hooks.after?.(adapter);
    };
  });
  return () => subscription.unsubscribe();
}
