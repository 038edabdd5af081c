import type { Exchange, Middleware } from '@tessera/web';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { RateLimitPolicyName } from '../config/identity.config.js';
import { isRestricted, type IdentityContext } from '../context/identity-context.js';
import { rateLimitKey } from '../tokens/pseudonym.format.js';
import { rateLimitPeer } from '../tokens/client-address.format.js';
import { getIdentityContext, getRequestTime } from './identity-exchange.js';
import { getClientAddress } from './pipeline-stages.js';
import { parseStrictJson } from './strict-json.js';
import { decodeBody, type BodySchema, type DecodedBody } from './request-fields.js';
import { recordRateLimited } from '../telemetry/identity-telemetry.js';

/** Caller classes a route admits (identity-http §3). */
export interface CallerClasses {
  readonly anonymous?: boolean;
  readonly user?: boolean;
  readonly restricted?: boolean;
  /** DEV: a device access token (capabilities = the family's approved scopes). */
  readonly device?: boolean;
}

/**
 * Stage 7, the authentication gate: anonymous callers on a non-anonymous route, restricted
 * sessions on any route that does not admit them, and device or service bearers on a route that
 * does not list DEV (no identity route lists SVC) get 401 `authentication_required`.
 */
export function callerGate(classes: CallerClasses): Middleware {
  return async (exchange, next) => {
    const context = getIdentityContext(exchange);
    const admitted =
      context === undefined
        ? classes.anonymous === true
        : isRestricted(context)
          ? classes.restricted === true
          : context.principal.kind === 'user'
            ? classes.user === true
            : context.principal.kind === 'device' && classes.device === true;
    if (!admitted) throw new IdentityError('authentication_required');
    await next();
  };
}

/**
 * Stage 8: counts the request in the shared limiter before any credential is checked; 429 with
 * `Retry-After` past the limit, 503 when the limiter cannot decide. `subject` picks the key:
 * the trusted-proxy client address, or the signed-in user.
 */
export function rateLimited(kernel: IdentityKernel, policy: RateLimitPolicyName, subject: 'peer' | 'user'): Middleware {
  return async (exchange, next) => {
    const settings = kernel.config.rateLimits[policy];
    if (settings === false) return next();
    const who =
      subject === 'user'
        ? (getIdentityContext(exchange)?.principal.id ?? 'anonymous')
        : rateLimitPeer(getClientAddress(exchange));
    await consumeRateLimit(kernel, policy, who, requestTime(exchange));
    await next();
  };
}

/**
 * Counts one request of `subject` in `policy`'s bucket (a disabled policy counts nothing): 429
 * `rate_limited` with `Retry-After` past the limit, 503 `service_unavailable` when the limiter
 * cannot decide. For a handler whose bucket key needs the request (the `oauth_token` policy keys
 * peer + `client_id`).
 *
 * @example
 * await consumeRateLimit(kernel, 'oauth_token', `${peer}\n${clientId}`, at);
 */
export async function consumeRateLimit(
  kernel: IdentityKernel,
  policy: RateLimitPolicyName,
  subject: string,
  at: Date,
): Promise<void> {
  const settings = kernel.config.rateLimits[policy];
  if (settings === false) return;
  const key = rateLimitKey(kernel.keys.auditKey, policy, subject);
  let decision;
  try {
    decision = await kernel.rateLimiter.consume({ name: policy, ...settings }, key, at);
  } catch (cause) {
    throw new IdentityError('service_unavailable', { cause });
  }
  if (!decision.allowed) {
    recordRateLimited(policy);
    throw new IdentityError('rate_limited', { retryAfterSeconds: decision.retryAfterSeconds });
  }
}

/** The request time captured at stage 2 (a missing one is a wiring error). */
export function requestTime(exchange: Exchange): Date {
  const time = getRequestTime(exchange);
  if (time === undefined) throw new Error('identityRequestTime did not run before an identity route');
  return time;
}

/** The signed-in context of a route behind {@link callerGate}. */
export function requireContext(exchange: Exchange): IdentityContext {
  const context = getIdentityContext(exchange);
  if (context === undefined) throw new IdentityError('authentication_required');
  return context;
}

const JSON_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * Stage 9's framing of a body (identity-http §1): exactly one `Content-Type` matching `type`, at
 * most one valid `Content-Length` within `limitBytes`, then the bytes (at most `limitBytes`).
 * Every violation is 400 `request_invalid`.
 *
 * @example
 * const bytes = await readTypedBody(exchange, FORM_TYPE, IDENTITY_FIXED_LIMITS.samlFormBytes);
 */
export async function readTypedBody(exchange: Exchange, type: RegExp, limitBytes: number): Promise<Buffer> {
  const types = exchange.headerValues('content-type');
  const lengths = exchange.headerValues('content-length');
  if (types.length !== 1 || !type.test(types[0]!.trim())) throw new IdentityError('request_invalid');
  if (
    lengths.length > 1 ||
    (lengths.length === 1 && !(/^[0-9]{1,10}$/.test(lengths[0]!) && Number(lengths[0]) <= limitBytes))
  ) {
    throw new IdentityError('request_invalid');
  }
  try {
    return await exchange.readBody({ limitBytes });
  } catch {
    throw new IdentityError('request_invalid');
  }
}

/**
 * Stage 9 for JSON bodies (identity-http §1): exactly one `application/json` content type, at most
 * one valid `Content-Length` within the limit (`limits.jsonBodyBytes`, or a route's smaller one), a non-empty strict-UTF-8 body and strict JSON.
 * Every violation is 400 `request_invalid`; nothing of the body is echoed.
 */
export async function readIdentityJson(
  kernel: IdentityKernel,
  exchange: Exchange,
  limitBytes?: number,
): Promise<unknown> {
  const limit = Math.min(limitBytes ?? Infinity, kernel.config.limits.jsonBodyBytes);
  const bytes = await readTypedBody(exchange, JSON_TYPE, limit);
  if (bytes.byteLength === 0) throw new IdentityError('request_invalid');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new IdentityError('request_invalid');
  }
  const value = parseStrictJson(text);
  if (value === undefined) throw new IdentityError('request_invalid');
  return value;
}

/**
 * {@link readIdentityJson} plus the route's field rules (`request-fields.ts`).
 *
 * @example
 * const body = await readIdentityBody(kernel, exchange, { token: { kind: 'text', min: 20, max: 512 } });
 */
export async function readIdentityBody<S extends BodySchema>(
  kernel: IdentityKernel,
  exchange: Exchange,
  schema: S,
): Promise<DecodedBody<S>> {
  const decoded = decodeBody(await readIdentityJson(kernel, exchange), schema);
  if (decoded === undefined) throw new IdentityError('request_invalid');
  return decoded;
}

/**
 * Runs a store read; a thrown store error becomes 503 `service_unavailable` (identity-http §2.1).
 *
 * @example
 * const user = await storeRead(() => kernel.store.findUser(id));
 */
export async function storeRead<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (cause) {
    throw new IdentityError('service_unavailable', { cause });
  }
}
