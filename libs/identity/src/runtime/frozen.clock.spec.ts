import { describe, expect, it } from '@jest/globals';
import { FrozenClock, systemClock } from './frozen.clock.js';

describe('FrozenClock', () => {
  it('stands still until advanced or set', () => {
    const clock = new FrozenClock('2026-07-14T08:15:30Z');
    expect(clock.now().toISOString()).toBe('2026-07-14T08:15:30.000Z');
    expect(clock.now().getTime()).toBe(clock.now().getTime());
    clock.advance({ minutes: 5, seconds: 1, milliseconds: 2 });
    expect(clock.now().toISOString()).toBe('2026-07-14T08:20:31.002Z');
    clock.advance({ days: -1, hours: 1 });
    expect(clock.now().toISOString()).toBe('2026-07-13T09:20:31.002Z');
    clock.set(new Date(0));
    expect(clock.now().getTime()).toBe(0);
  });

  it('returns fresh Date objects so callers cannot move it by mutation', () => {
    const clock = new FrozenClock(1000);
    clock.now().setTime(5);
    expect(clock.now().getTime()).toBe(1000);
  });

  it('refuses invalid instants', () => {
    expect(() => new FrozenClock('not a date')).toThrow(RangeError);
    expect(() => new FrozenClock(1).advance({ seconds: Number.NaN })).toThrow(RangeError);
  });

  it('systemClock follows the wall clock', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
