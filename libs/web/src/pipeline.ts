import type { Exchange } from './exchange.js';

/** `(exchange, next) => Promise<void>`: answers, or calls `next()` to pass the request on. */
export type Middleware = (exchange: Exchange, next: () => Promise<void>) => Promise<void> | void;

/** `(exchange) => Promise<void> | void`: answers through `exchange.respond(...)`. */
export type RouteHandler = (exchange: Exchange) => Promise<void> | void;

/**
 * Runs `middleware` in order, then `last`. Each `next()` may be called once; the chain is
 * resolved as one promise so a throw anywhere rejects it.
 */
export function compose(middleware: readonly Middleware[], last: (exchange: Exchange) => Promise<void> | void) {
  const count = middleware.length;
  if (count === 0) return last;
  return (exchange: Exchange): Promise<void> => {
    const dispatch = async (index: number): Promise<void> => {
      if (index === count) return last(exchange);
      let called = false;
      return middleware[index]!(exchange, () => {
        if (called) return Promise.reject(new Error('next() called more than once'));
        called = true;
        return dispatch(index + 1);
      });
    };
    return dispatch(0);
  };
}

/**
 * An ordered list of middleware (web-and-viewset §2).
 *
 * @example
 * const pipeline = new Pipeline().use(requestId).use(router.asMiddleware());
 * const answered = await pipeline.handle(exchange);
 */
export class Pipeline {
  private readonly chain: Middleware[] = [];
  private run: ((exchange: Exchange) => Promise<void> | void) | undefined;

  /** Appends a middleware; returns the same pipeline. */
  use(middleware: Middleware): this {
    this.chain.push(middleware);
    this.run = undefined;
    return this;
  }

  /** Runs the chain: `true` when a response was sent, `false` when it fell off the end. */
  async handle(exchange: Exchange): Promise<boolean> {
    const run = (this.run ??= compose(this.chain, () => undefined));
    await run(exchange);
    return exchange.responded;
  }
}
