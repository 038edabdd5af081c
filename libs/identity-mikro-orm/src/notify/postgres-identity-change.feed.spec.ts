import { describe, expect, it } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/core';
import { PostgresIdentityChangeFeed } from './postgres-identity-change.feed.js';

const em = {} as EntityManager;

describe('PostgresIdentityChangeFeed options', () => {
  it('accepts the defaults and sound timings', () => {
    expect(() => new PostgresIdentityChangeFeed(em)).not.toThrow();
    expect(
      () =>
        new PostgresIdentityChangeFeed(em, {
          heartbeatMs: 100,
          leaseMs: 300,
          connectTimeoutMs: 1000,
          minBackoffMs: 50,
          maxBackoffMs: 50,
        }),
    ).not.toThrow();
  });

  it.each([
    [{ heartbeatMs: 0 }, 'changeFeed.heartbeatMs must be an integer number of milliseconds in 1..600000'],
    [{ leaseMs: 1.5 }, 'changeFeed.leaseMs must be an integer number of milliseconds in 1..600000'],
    [{ connectTimeoutMs: -1 }, 'changeFeed.connectTimeoutMs must be an integer number of milliseconds in 1..600000'],
    [{ maxBackoffMs: 600_001 }, 'changeFeed.maxBackoffMs must be an integer number of milliseconds in 1..600000'],
    [{ heartbeatMs: 750 }, 'changeFeed.leaseMs must be longer than changeFeed.heartbeatMs'],
    [{ minBackoffMs: 6000 }, 'changeFeed.maxBackoffMs must be at least changeFeed.minBackoffMs'],
  ])('refuses %j', (options, message) => {
    expect(() => new PostgresIdentityChangeFeed(em, options)).toThrow(new RangeError(message));
  });
});
