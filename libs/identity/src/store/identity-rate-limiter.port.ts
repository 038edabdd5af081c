/** A rate-limit policy (identity-http §10). */
export interface RateLimitPolicy {
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

/** Decision of one counted request. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly count: number;
  /** Seconds to the end of the window, ≥ 1. */
  readonly retryAfterSeconds: number;
}

/**
 * Shared fixed-window limiter (identity-model §9.6). `consume` counts the request and decides;
 * it throws (or rejects) when it cannot decide, and callers fail closed with 503.
 */
export interface IdentityRateLimiter {
  /** `true` for a limiter shared by every instance (required in staging/production). */
  readonly shared: boolean;
  consume(policy: RateLimitPolicy, bucketKey: string, now: Date): Promise<RateLimitDecision>;
  /**
   * Resolves when the limiter could decide now (its backing store answers within the limiter's own
   * deadline), counting nothing; rejects otherwise. The readiness probe calls it.
   */
  probe(): Promise<void>;
}

/** DI token of the {@link IdentityRateLimiter} port. */
export const IdentityRateLimiter: unique symbol = Symbol('IdentityRateLimiter');
