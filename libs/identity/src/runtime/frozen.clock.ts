import type { IdentityClock } from './identity.runtime.js';

/**
 * The real wall clock.
 *
 * @example
 * const runtime = createNodeIdentityRuntime({ clock: systemClock });
 */
export const systemClock: IdentityClock = Object.freeze({ now: () => new Date() });

/**
 * A clock that stands still until told to move: for TTL tests through the runtime's clock.
 *
 * @example
 * const clock = new FrozenClock('2026-07-14T08:15:30Z');
 * clock.advance({ minutes: 5 });
 */
export class FrozenClock implements IdentityClock {
  private ms: number;

  constructor(start: Date | string | number = Date.UTC(2026, 0, 1)) {
    this.ms = toMs(start);
  }

  /** A fresh `Date` of the current frozen instant. */
  now(): Date {
    return new Date(this.ms);
  }

  /** Moves the clock to `instant`. */
  set(instant: Date | string | number): void {
    this.ms = toMs(instant);
  }

  /** Moves the clock forward (or backward with negative amounts). */
  advance(by: { milliseconds?: number; seconds?: number; minutes?: number; hours?: number; days?: number }): Date {
    const delta =
      (by.milliseconds ?? 0) +
      (by.seconds ?? 0) * 1000 +
      (by.minutes ?? 0) * 60_000 +
      (by.hours ?? 0) * 3_600_000 +
      (by.days ?? 0) * 86_400_000;
    this.ms = toMs(this.ms + delta);
    return this.now();
  }
}

function toMs(instant: Date | string | number): number {
  const ms = instant instanceof Date ? instant.getTime() : typeof instant === 'string' ? Date.parse(instant) : instant;
  if (!Number.isFinite(ms)) throw new RangeError(`invalid clock instant: ${String(instant)}`);
  return ms;
}
