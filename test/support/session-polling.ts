import type request from 'supertest';

/**
 * Sends `ask` back to back (a short pause between) until it answers anything but 200, or `ms`
 * passed: the last answer and how long it took. For changes another instance (or SQL) makes, which
 * reach a session cache a few milliseconds later.
 *
 * @example
 * const { last } = await refusedWithin(() => me(app, session), 2000);
 */
export async function refusedWithin(
  ask: () => Promise<request.Response>,
  ms: number,
): Promise<{ latency: number; last: request.Response }> {
  const started = performance.now();
  let last = await ask();
  while (last.status === 200 && performance.now() - started < ms) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    last = await ask();
  }
  return { latency: performance.now() - started, last };
}
