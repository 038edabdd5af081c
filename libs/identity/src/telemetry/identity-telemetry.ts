import {
  context,
  metrics,
  SpanStatusCode,
  trace,
  type Attributes,
  type MeterProvider,
  type Span,
} from '@opentelemetry/api';
import type { Exchange, Middleware } from '@tessera/web';
import { IdentityError } from '../errors/identity.errors.js';
import { OAuthError } from '../errors/oauth.errors.js';
import { ScimError } from '../scim/scim.errors.js';
import type { RateLimitPolicyName } from '../config/identity.config.js';
import type { IdentityStore } from '../store/identity-store.port.js';
import { wrapStoreMethods } from '../store/store-method.proxy.js';

/**
 * Traces and metrics of the identity platform through `@opentelemetry/api` only: without an SDK
 * registered by the host, every call below is the API's no-op. Every attribute value comes from a
 * closed set (stage and store command names, route templates, error codes, policies, methods), so
 * no span, event or metric ever carries a token, digest, cookie, email, address or exception text.
 */
const SCOPE = '@tessera/identity';

/** Attribute keys the identity platform emits (README "Telemetry"). */
export const TELEMETRY_ATTRIBUTES = Object.freeze({
  stage: 'identity.stage',
  outcome: 'identity.outcome',
  errorCode: 'identity.error.code',
  storeCommand: 'identity.store.command',
  storeFailure: 'identity.store.failure',
  authMethod: 'identity.auth_method',
  policy: 'identity.rate_limit.policy',
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
});

/** Metric names (README "Telemetry"). */
export const TELEMETRY_METRICS = Object.freeze({
  signIns: 'tessera.identity.signins',
  rateLimited: 'tessera.identity.rate_limited',
  replaysDetected: 'tessera.identity.replays_detected',
  storeDuration: 'tessera.identity.store.duration',
});

/** The pre-route pipeline stages (identity-http §2), as span names `identity.stage <name>`. */
export type IdentityStageName =
  'request_id' | 'federation_headers' | 'request_time' | 'authority_check' | 'credential_resolution' | 'csrf';

/** How a sign-in authenticated: the `identity.auth_method` of `tessera.identity.signins`. */
export type SignInMethod =
  | 'passkey'
  | 'recovery_code'
  | 'administrative_recovery'
  | 'bootstrap'
  | 'invitation'
  | 'oidc'
  | 'saml'
  | 'device_token';

const A = TELEMETRY_ATTRIBUTES;
const SIGN_IN_METHOD = 'tessera.identity.signInMethod';
/** Answers that end no sign-in attempt: refused by the limiter (counted apart) or a device still polling. */
const NOT_AN_ATTEMPT = new Set(['rate_limited', 'authorization_pending', 'slow_down']);

function instrumentsOf(provider: MeterProvider) {
  const meter = provider.getMeter(SCOPE);
  return {
    provider,
    signIns: meter.createCounter(TELEMETRY_METRICS.signIns, {
      description: 'Sign-in attempts by outcome (succeeded, failed) and authentication method',
    }),
    rateLimited: meter.createCounter(TELEMETRY_METRICS.rateLimited, {
      description: 'Requests refused by the identity rate limiter, by policy',
    }),
    replays: meter.createCounter(TELEMETRY_METRICS.replaysDetected, {
      description: 'Replays the store detected (a reused device refresh token, a federation assertion seen twice)',
    }),
    storeDuration: meter.createHistogram(TELEMETRY_METRICS.storeDuration, {
      description: 'Duration of identity store commands, by command and outcome',
      unit: 's',
    }),
  };
}

let current: ReturnType<typeof instrumentsOf> | undefined;

/** The instruments of the meter provider registered now (the API keeps no proxy for meters). */
function instruments(): ReturnType<typeof instrumentsOf> {
  const provider = metrics.getMeterProvider();
  if (current?.provider !== provider) current = instrumentsOf(provider);
  return current;
}

const tracer = () => trace.getTracer(SCOPE);

/** The closed code and status of a thrown error (never its message). */
function describeError(error: unknown): Attributes {
  if (error instanceof IdentityError || error instanceof OAuthError)
    return { [A.errorCode]: error.code, [A.httpStatus]: error.status };
  if (error instanceof ScimError)
    return { [A.errorCode]: error.scimType ?? 'scim_error', [A.httpStatus]: error.status };
  return { [A.errorCode]: 'internal_error' };
}

function endWithError(span: Span, error: unknown): void {
  span.setAttributes({ [A.outcome]: 'error', ...describeError(error) });
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * A pipeline stage with a span `identity.stage <name>` covering the stage's own work: it ends
 * when the stage hands on (`identity.outcome` `passed`), answers (`answered`) or throws (`error`),
 * so later stages and the route are its siblings, not its children.
 *
 * @example
 * { order: 400, middleware: tracedStage('csrf', identityCsrfMiddleware(options)) }
 */
export function tracedStage(stage: IdentityStageName, middleware: Middleware): Middleware {
  const name = `identity.stage ${stage}`;
  return async (exchange, next) => {
    const parent = context.active();
    const span = tracer().startSpan(name, { attributes: { [A.stage]: stage } }, parent);
    let open = true;
    const onward = () => {
      if (open) {
        open = false;
        span.setAttribute(A.outcome, 'passed');
        span.end();
      }
      return context.with(parent, next);
    };
    try {
      await context.with(trace.setSpan(parent, span), () => middleware(exchange, onward));
    } catch (error) {
      if (open) endWithError(span, error);
      open = false;
      throw error;
    }
    if (open) {
      span.setAttribute(A.outcome, 'answered');
      span.end();
    }
  };
}

/**
 * Marks the request as a sign-in attempt by `method`: {@link tracedRoute} counts it in
 * `tessera.identity.signins` once the route settled (for a route whose method depends on its input).
 *
 * @example
 * if (form.grant_type === DEVICE_CODE_GRANT_TYPE) markSignIn(exchange, 'device_token');
 */
export function markSignIn(exchange: Exchange, method: SignInMethod): void {
  exchange.attributes.set(SIGN_IN_METHOD, method);
}

/**
 * The first middleware of a route: a span `identity.route <METHOD> <template>` around the rest of
 * the chain (`identity.outcome` `ok` or `error` with `identity.error.code` and the error's
 * `http.response.status_code`), and the sign-in count when `signIn` is declared or
 * {@link markSignIn} was called. A request refused by the limiter or a device still polling is no
 * sign-in attempt.
 *
 * @example
 * router.add('POST', path, tracedRoute('POST', path, 'passkey'), ...chain);
 */
export function tracedRoute(method: string, template: string, signIn?: SignInMethod): Middleware {
  const name = `identity.route ${method} ${template}`;
  const attributes = { [A.httpMethod]: method, [A.httpRoute]: template };
  return (exchange, next) =>
    tracer().startActiveSpan(name, { attributes }, async (span) => {
      if (signIn !== undefined) markSignIn(exchange, signIn);
      const counted = () => exchange.attributes.get(SIGN_IN_METHOD) as SignInMethod | undefined;
      try {
        await next();
      } catch (error) {
        endWithError(span, error);
        const code = describeError(error)[A.errorCode] as string;
        const attempted = counted();
        if (attempted !== undefined && !NOT_AN_ATTEMPT.has(code)) recordSignIn(attempted, 'failed');
        throw error;
      }
      span.setAttribute(A.outcome, 'ok');
      span.end();
      const attempted = counted();
      if (attempted !== undefined) recordSignIn(attempted, 'succeeded');
    });
}

function recordSignIn(method: SignInMethod, outcome: 'succeeded' | 'failed'): void {
  instruments().signIns.add(1, { [A.outcome]: outcome, [A.authMethod]: method });
}

/**
 * Counts one request the limiter refused under `policy` (`tessera.identity.rate_limited`).
 *
 * @example
 * if (!decision.allowed) recordRateLimited(policy);
 */
export function recordRateLimited(policy: RateLimitPolicyName): void {
  instruments().rateLimited.add(1, { [A.policy]: policy });
}

/** The closed outcome of a store call: `ok`, or `failed` with the store's failure code. */
function storeOutcome(value: unknown): Attributes {
  if (typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false) {
    const code = (value as { code?: unknown }).code;
    if (typeof code === 'string') return { [A.outcome]: 'failed', [A.storeFailure]: code };
  }
  return { [A.outcome]: 'ok' };
}

/**
 * Wraps one store method: a span `identity.store <command>` (the active span while it runs, so a
 * database driver's own spans nest under it), the `tessera.identity.store.duration` histogram by
 * command and outcome (`ok`, `failed` with `identity.store.failure`, `error` for a throw), and
 * `tessera.identity.replays_detected` for a `replay_detected` result.
 *
 * @example
 * const rotate = tracedStoreCommand('rotateDeviceRefreshToken', (input) => store.rotateDeviceRefreshToken(input));
 */
export function tracedStoreCommand(
  command: string,
  method: (...args: unknown[]) => unknown,
): (...args: unknown[]) => unknown {
  const name = `identity.store ${command}`;
  const attributes = { [A.storeCommand]: command };
  return (...args) => {
    const span = tracer().startSpan(name, { attributes });
    const started = performance.now();
    const settle = (outcome: Attributes) => {
      instruments().storeDuration.record((performance.now() - started) / 1000, { ...attributes, ...outcome });
      if (outcome[A.storeFailure] === 'replay_detected') instruments().replays.add(1, attributes);
    };
    const succeeded = (value: unknown) => {
      const outcome = storeOutcome(value);
      span.setAttributes(outcome);
      span.end();
      settle(outcome);
      return value;
    };
    const failed = (error: unknown): never => {
      span.setAttribute(A.outcome, 'error');
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      settle({ [A.outcome]: 'error' });
      throw error;
    };
    let result: unknown;
    try {
      result = context.with(trace.setSpan(context.active(), span), () => method(...args));
    } catch (error) {
      return failed(error);
    }
    return result instanceof Promise ? result.then(succeeded, failed) : succeeded(result);
  };
}

/**
 * `store` with every method traced and timed by {@link tracedStoreCommand} (the kernel's store).
 *
 * @example
 * const store = sessionCache.invalidating(tracedStore(rawStore));
 */
export function tracedStore(store: IdentityStore): IdentityStore {
  return wrapStoreMethods(store, tracedStoreCommand);
}
