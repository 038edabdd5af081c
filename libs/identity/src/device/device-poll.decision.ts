/**
 * Seconds added to a grant's polling interval by each `slow_down` (RFC 8628 §3.5), cumulatively.
 *
 * @example
 * next = Math.min(interval + DEVICE_SLOW_DOWN_STEP_SECONDS, DEVICE_MAX_POLLING_INTERVAL_SECONDS);
 */
export const DEVICE_SLOW_DOWN_STEP_SECONDS = 5;

/**
 * The polling interval never grows past this (`identity-model.md` §3: 5..300 s).
 *
 * @example
 * expect(decision.intervalSeconds).toBeLessThanOrEqual(DEVICE_MAX_POLLING_INTERVAL_SECONDS);
 */
export const DEVICE_MAX_POLLING_INTERVAL_SECONDS = 300;

/**
 * What a token-endpoint poll needs to know of its device grant (a store record fits as is).
 *
 * @example
 * const decision = decideDevicePoll(grant, form.client_id, requestTime(exchange));
 */
export interface DevicePollGrant {
  readonly state: 'pending' | 'authorized' | 'denied' | 'consumed' | 'expired' | 'cancelled';
  readonly clientId: string;
  readonly expiresAt: Date;
  /** `null` until the first poll. */
  readonly lastPolledAt: Date | null;
  /** The current interval, including every earlier `slow_down`. */
  readonly intervalSeconds: number;
  readonly pollCount: number;
}

/**
 * The outcome of one poll of `POST /oauth/token` with a device code (`identity-model.md` §5.5):
 *
 * - `refuse`: answer `error` and write nothing: a wrong `client_id` (the poll is not counted), a
 *   consumed, cancelled, denied or already expired grant;
 * - `expire`: compare-and-set `pending`/`authorized` → `expired`, audit
 *   `device_authorization_expired`, answer `expired_token`;
 * - `record_poll`: compare-and-set `pollCount`, `lastPolledAt` and `intervalSeconds` on the
 *   pending grant, audit `audit`, answer `error` (the response never carries the new interval);
 * - `exchange`: the grant is authorized: run the exchange (its checks, then one compare-and-set
 *   claim).
 *
 * @example
 * if (decision.action === 'record_poll') {
 *   // compare-and-set { pollCount, lastPolledAt, intervalSeconds } at grant.version, audit decision.audit
 *   throw new OAuthError(decision.error);
 * }
 */
export type DevicePollDecision =
  | { readonly action: 'refuse'; readonly error: 'invalid_grant' | 'access_denied' | 'expired_token' }
  | { readonly action: 'expire'; readonly error: 'expired_token' }
  | {
      readonly action: 'record_poll';
      readonly error: 'authorization_pending' | 'slow_down';
      readonly audit: 'device_poll_pending' | 'device_poll_slow_down';
      readonly pollCount: number;
      readonly lastPolledAt: Date;
      readonly intervalSeconds: number;
    }
  | { readonly action: 'exchange' };

/**
 * Decides one device-code poll at the request's instant `now`, in this order: a `client_id` other
 * than the grant's → `invalid_grant` (grant untouched); a consumed grant → `invalid_grant`; at or
 * after `expiresAt` → `expired_token` (pending and authorized grants expire now); denied →
 * `access_denied`; cancelled → `invalid_grant`; expired → `expired_token`; authorized →
 * `exchange`. A pending grant records the poll: the first poll, or one at or after
 * `lastPolledAt + interval`, is `authorization_pending`; an earlier one is `slow_down` and the
 * stored interval grows by 5 s (cumulatively, at most 300 s). Every poll moves `lastPolledAt`.
 *
 * @example
 * const decision = decideDevicePoll(grant, 'tessera-cli', new Date('2026-07-14T08:15:33Z'));
 * // lastPolledAt 08:15:30, interval 5 → { action: 'record_poll', error: 'slow_down', intervalSeconds: 10, ... }
 */
export function decideDevicePoll(grant: DevicePollGrant, clientId: string, now: Date): DevicePollDecision {
  if (clientId !== grant.clientId) return { action: 'refuse', error: 'invalid_grant' };
  if (grant.state === 'consumed') return { action: 'refuse', error: 'invalid_grant' };
  if (now.getTime() >= grant.expiresAt.getTime()) {
    return grant.state === 'pending' || grant.state === 'authorized'
      ? { action: 'expire', error: 'expired_token' }
      : { action: 'refuse', error: 'expired_token' };
  }
  switch (grant.state) {
    case 'denied':
      return { action: 'refuse', error: 'access_denied' };
    case 'cancelled':
      return { action: 'refuse', error: 'invalid_grant' };
    case 'expired':
      return { action: 'refuse', error: 'expired_token' };
    case 'authorized':
      return { action: 'exchange' };
    case 'pending':
      return recordPoll(grant, now);
  }
}

function recordPoll(grant: DevicePollGrant, now: Date): DevicePollDecision {
  const early =
    grant.lastPolledAt !== null && now.getTime() < grant.lastPolledAt.getTime() + grant.intervalSeconds * 1000;
  return early
    ? {
        action: 'record_poll',
        error: 'slow_down',
        audit: 'device_poll_slow_down',
        pollCount: grant.pollCount + 1,
        lastPolledAt: now,
        intervalSeconds: Math.min(
          grant.intervalSeconds + DEVICE_SLOW_DOWN_STEP_SECONDS,
          DEVICE_MAX_POLLING_INTERVAL_SECONDS,
        ),
      }
    : {
        action: 'record_poll',
        error: 'authorization_pending',
        audit: 'device_poll_pending',
        pollCount: grant.pollCount + 1,
        lastPolledAt: now,
        intervalSeconds: grant.intervalSeconds,
      };
}
