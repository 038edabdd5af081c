import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  decideDevicePoll,
  DEVICE_MAX_POLLING_INTERVAL_SECONDS,
  type DevicePollDecision,
  type DevicePollGrant,
} from './device-poll.decision.js';

const t0 = new Date('2026-07-14T08:15:30Z');
const at = (seconds: number): Date => new Date(t0.getTime() + seconds * 1000);

function grant(patch: Partial<DevicePollGrant> = {}): DevicePollGrant {
  return {
    state: 'pending',
    clientId: 'tessera-cli',
    expiresAt: at(600),
    lastPolledAt: null,
    intervalSeconds: 5,
    pollCount: 0,
    ...patch,
  };
}

/** Applies a record_poll decision the way the store's compare-and-set would. */
function apply(current: DevicePollGrant, decision: DevicePollDecision): DevicePollGrant {
  if (decision.action !== 'record_poll') throw new Error(`expected record_poll, got ${decision.action}`);
  return { ...current, ...decision, state: current.state };
}

describe('device-code poll pacing (identity-model §5.5, RFC 8628 §3.5)', () => {
  it('answers the first poll authorization_pending, even right after the grant started', () => {
    expect(decideDevicePoll(grant(), 'tessera-cli', t0)).toEqual({
      action: 'record_poll',
      error: 'authorization_pending',
      audit: 'device_poll_pending',
      pollCount: 1,
      lastPolledAt: t0,
      intervalSeconds: 5,
    });
  });

  it('answers slow_down only for a poll earlier than lastPolledAt + interval, and stores the interval + 5 s', () => {
    const polled = grant({ lastPolledAt: t0, pollCount: 1 });
    expect(decideDevicePoll(polled, 'tessera-cli', at(4.999))).toMatchObject({
      error: 'slow_down',
      audit: 'device_poll_slow_down',
      pollCount: 2,
      lastPolledAt: at(4.999),
      intervalSeconds: 10,
    });
    expect(decideDevicePoll(polled, 'tessera-cli', at(5))).toMatchObject({
      error: 'authorization_pending',
      intervalSeconds: 5,
      lastPolledAt: at(5),
    });
  });

  it('grows the interval cumulatively and measures the next poll against the grown interval', () => {
    let current = grant();
    current = apply(current, decideDevicePoll(current, 'tessera-cli', at(0))); // first: pending
    current = apply(current, decideDevicePoll(current, 'tessera-cli', at(1))); // slow_down → 10
    current = apply(current, decideDevicePoll(current, 'tessera-cli', at(2))); // slow_down → 15
    expect(current).toMatchObject({ intervalSeconds: 15, pollCount: 3, lastPolledAt: at(2) });
    expect(decideDevicePoll(current, 'tessera-cli', at(16))).toMatchObject({ error: 'slow_down', intervalSeconds: 20 });
    expect(decideDevicePoll(current, 'tessera-cli', at(17))).toMatchObject({
      error: 'authorization_pending',
      intervalSeconds: 15,
    });
  });

  it('never grows the interval past 300 s', () => {
    const slow = grant({ lastPolledAt: t0, intervalSeconds: 298 });
    expect(decideDevicePoll(slow, 'tessera-cli', at(1))).toMatchObject({ error: 'slow_down', intervalSeconds: 300 });
    const capped = grant({ lastPolledAt: t0, intervalSeconds: 300 });
    expect(decideDevicePoll(capped, 'tessera-cli', at(1))).toMatchObject({ error: 'slow_down', intervalSeconds: 300 });
  });

  it('keeps the interval within 5..300 and only ever grows it, for any poll sequence (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 80 }), (gapsMs) => {
        let current = grant({ expiresAt: at(10_000) });
        let clock = t0.getTime();
        for (const gap of gapsMs) {
          clock += gap;
          const before = current;
          const decision = decideDevicePoll(current, 'tessera-cli', new Date(clock));
          current = apply(current, decision);
          const early =
            before.lastPolledAt !== null && clock < before.lastPolledAt.getTime() + before.intervalSeconds * 1000;
          expect(decision).toMatchObject({ error: early ? 'slow_down' : 'authorization_pending' });
          expect(current.intervalSeconds).toBeGreaterThanOrEqual(before.intervalSeconds);
          expect(current.intervalSeconds).toBeLessThanOrEqual(DEVICE_MAX_POLLING_INTERVAL_SECONDS);
          expect(current.intervalSeconds - before.intervalSeconds).toBe(
            early ? Math.min(5, DEVICE_MAX_POLLING_INTERVAL_SECONDS - before.intervalSeconds) : 0,
          );
          expect(current.pollCount).toBe(before.pollCount + 1);
          expect(current.lastPolledAt).toEqual(new Date(clock));
        }
      }),
    );
  });

  it('refuses a poll with another client_id as invalid_grant and leaves the grant untouched, in any state', () => {
    for (const state of ['pending', 'authorized', 'denied', 'consumed', 'expired', 'cancelled'] as const) {
      expect(decideDevicePoll(grant({ state, lastPolledAt: t0 }), 'tessera-cli-2', at(1))).toEqual({
        action: 'refuse',
        error: 'invalid_grant',
      });
    }
    expect(decideDevicePoll(grant(), 'tessera-cli-2', at(700))).toEqual({ action: 'refuse', error: 'invalid_grant' });
  });

  it.each<[DevicePollGrant['state'], DevicePollDecision]>([
    ['authorized', { action: 'exchange' }],
    ['denied', { action: 'refuse', error: 'access_denied' }],
    ['consumed', { action: 'refuse', error: 'invalid_grant' }],
    ['cancelled', { action: 'refuse', error: 'invalid_grant' }],
    ['expired', { action: 'refuse', error: 'expired_token' }],
  ])('answers a %s grant before its expiry with %p, without pacing', (state, expected) => {
    // A poll right after the previous one: pacing applies to pending grants only.
    expect(decideDevicePoll(grant({ state, lastPolledAt: t0 }), 'tessera-cli', at(1))).toEqual(expected);
  });

  it('expires pending and authorized grants at their expiry instant (expired_token)', () => {
    for (const state of ['pending', 'authorized'] as const) {
      expect(decideDevicePoll(grant({ state }), 'tessera-cli', at(600))).toEqual({
        action: 'expire',
        error: 'expired_token',
      });
      expect(decideDevicePoll(grant({ state }), 'tessera-cli', at(599.999)).action).not.toBe('expire');
    }
  });

  it('answers expired_token for any other grant that is not consumed once its expiry has passed', () => {
    for (const state of ['denied', 'cancelled', 'expired'] as const) {
      expect(decideDevicePoll(grant({ state }), 'tessera-cli', at(600))).toEqual({
        action: 'refuse',
        error: 'expired_token',
      });
    }
    expect(decideDevicePoll(grant({ state: 'consumed' }), 'tessera-cli', at(600))).toEqual({
      action: 'refuse',
      error: 'invalid_grant',
    });
  });
});
