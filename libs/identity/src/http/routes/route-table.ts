import type { Exchange, Middleware, Router } from '@tessera/web';
import type { RateLimitPolicyName } from '../../config/identity.config.js';
import type { IdentityCall } from '../../context/identity-call.js';
import type { IdentityContext } from '../../context/identity-context.js';
import { IdentityError } from '../../errors/identity.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { getIdentityContext } from '../identity-exchange.js';
import { decodeBody, isUuidV7, type BodySchema, type DecodedBody } from '../request-fields.js';
import { callerGate, rateLimited, readIdentityJson, requestTime, type CallerClasses } from '../route-kit.js';
import { identityServices, type IdentityServices } from './identity-services.js';
import type { CustomBodyRouteDoc, OAuthRouteDoc, RouteDoc } from './route-doc.js';
import { tracedRoute, type SignInMethod } from '../../telemetry/identity-telemetry.js';

/** HTTP methods an identity route may declare (a GET route also answers HEAD; PUT is for SCIM). */
export type IdentityRouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a route's JSON body is decoded (stage 9): a decoder returning `undefined` for anything it
 * refuses (400 `request_invalid`); the kernel gives it configured bounds. {@link fields} makes one
 * from field rules; `(json) => json` hands the strict-JSON value to a handler that decodes it
 * itself (a ceremony finish, which must end the ceremony on a bad body).
 */
export type BodyDecoder<B> = (json: unknown, kernel: IdentityKernel) => B | undefined;

/**
 * The decoder of a body with field rules (`request-fields.ts`). Declare it as a constant outside
 * the table row, so that the row's handler infers the decoded type.
 *
 * @example
 * body: fields({ name: { kind: 'text', min: 1, max: 200 } })
 */
export function fields<S extends BodySchema>(schema: S): FieldsDecoder<DecodedBody<S>> {
  const decoder = (json: unknown) => decodeBody(json, schema);
  return Object.assign(decoder, { fieldRules: schema });
}

/**
 * A {@link BodyDecoder} made by {@link fields}: it carries its field rules, from which the
 * OpenAPI document derives the request body schema (one source of truth).
 */
export type FieldsDecoder<B> = BodyDecoder<B> & { readonly fieldRules: BodySchema };

/** What a handler receives: the request, the services, and lazy input readers. */
export interface RouteCall<B> {
  readonly exchange: Exchange;
  readonly kernel: IdentityKernel;
  readonly services: IdentityServices;
  /** The request time captured at stage 2. */
  readonly at: Date;
  /** The caller's context, `undefined` for an anonymous caller of an ANON route. */
  readonly context: IdentityContext | undefined;
  /** The signed-in caller (401 `authentication_required` when anonymous), as a service call. */
  caller(): IdentityCall;
  /**
   * Reads and decodes the body with the route's {@link BodyDecoder}; lazy, so a handler decides
   * where in its checks a bad body answers 400 (a 404 of a path id may come first).
   */
  body(): Promise<B>;
  /** A path parameter that must be a canonical UUIDv7, else 400 `request_invalid`. */
  uuid(name: string): string;
}

/**
 * One identity route as data. Stages run in this order: `available` (404 when `false`), `before`
 * (middleware that must act whatever the outcome, e.g. clearing the ceremony cookie), the caller
 * gate of `callers` (stage 7, 401), the limiter of `rateLimit` (stage 8, 429/503), then `handle`.
 *
 * How a family is written (sessions, passkeys, recovery, organizations, invitations, service
 * identities today; device, federation and SCIM next): one `<family>.routes.ts` exporting one
 * {@link IdentityRouteTable}, added to `ROUTE_TABLES` in `identity.router.ts` (which also derives
 * the anonymous-route set from `callers.anonymous`); one service per domain under
 * `src/<domain>/`, added to `IdentityServices`, holding the orchestration (store commands, audit,
 * tenancy and step-up checks via `IdentitySessions`). A handler only parses input (`call.uuid`,
 * `call.body`), calls the service with `call.caller()` (or `call` for an anonymous caller) and
 * renders the answer (status, views, cookies).
 *
 * @example
 * route({
 *   method: 'POST',
 *   path: '/identity/v1/device/deny',
 *   callers: { user: true },
 *   rateLimit: { policy: 'device_user_code', key: 'user' },
 *   body: DENY_BODY,
 *   handle: async (call) => {
 *     const { userCode } = await call.body();
 *     respondIdentityJson(call.exchange, 200, grantView(await call.services.device.deny(call.caller(), userCode)));
 *   },
 * });
 */
interface IdentityRouteStages<B> {
  readonly method: IdentityRouteMethod;
  readonly path: string;
  /** Caller classes admitted (identity-http §3); `anonymous` also makes cookie failures count as absent. */
  readonly callers: CallerClasses;
  /** Stage 8: the limiter policy and whose bucket a request counts in. */
  readonly rateLimit?: { readonly policy: RateLimitPolicyName; readonly key: 'peer' | 'user' };
  /** A sign-in route: each attempt counts in `tessera.identity.signins` with this method. */
  readonly signIn?: SignInMethod;
  /** A body limit below `limits.jsonBodyBytes` (route 35: 256 bytes); a larger body is 400 `request_invalid`. */
  readonly bodyLimitBytes?: number;
  /** The route exists only when this holds for the kernel (else 404 before anything else). */
  readonly available?: (kernel: IdentityKernel) => boolean;
  readonly before?: readonly Middleware[];
  handle(call: RouteCall<B>): Promise<void>;
}

/**
 * The body and documentation of a row: no body, a {@link fields} decoder (whose rules give the
 * documented schema), or a custom decoder with its schema declared in `doc.requestBody`. The
 * OpenAPI document is generated from these rows, so `doc` is required.
 */
type IdentityRouteBody<B> =
  | { readonly body?: undefined; readonly doc: RouteDoc }
  /** An OAuth endpoint (`/oauth/*`): its handler reads the form body itself (`readOAuthForm`). */
  | { readonly body?: undefined; readonly doc: OAuthRouteDoc }
  | { readonly body: FieldsDecoder<B>; readonly doc: RouteDoc }
  | { readonly body: BodyDecoder<B>; readonly doc: CustomBodyRouteDoc };

/**
 * One identity route as data. Stages run in this order: `available` (404 when `false`), `before`
 * (middleware that must act whatever the outcome, e.g. clearing the ceremony cookie), the caller
 * gate of `callers` (stage 7, 401), the limiter of `rateLimit` (stage 8, 429/503), then `handle`.
 * `doc` describes the route for the OpenAPI document (`identityOpenApiDocument`).
 *
 * How a family is written (sessions, passkeys, recovery, organizations, invitations, service
 * identities today; device, federation and SCIM next): one `<family>.routes.ts` exporting one
 * {@link IdentityRouteTable}, added to `ROUTE_TABLES` in `identity.router.ts` (which also derives
 * the anonymous-route set from `callers.anonymous`); one service per domain under
 * `src/<domain>/`, added to `IdentityServices`, holding the orchestration (store commands, audit,
 * tenancy and step-up checks via `IdentitySessions`). A handler only parses input (`call.uuid`,
 * `call.body`), calls the service with `call.caller()` (or `call` for an anonymous caller) and
 * renders the answer (status, views, cookies).
 *
 * @example
 * route({
 *   method: 'POST',
 *   path: '/identity/v1/device/deny',
 *   callers: { user: true },
 *   rateLimit: { policy: 'device_user_code', key: 'user' },
 *   body: DENY_BODY,
 *   doc: { tag: 'device', summary: 'Deny a device grant', responses: { 200: OK }, errors: ['not_found'] },
 *   handle: async (call) => {
 *     const { userCode } = await call.body();
 *     respondIdentityJson(call.exchange, 200, grantView(await call.services.device.deny(call.caller(), userCode)));
 *   },
 * });
 */
export type IdentityRoute<B = unknown> = IdentityRouteStages<B> & IdentityRouteBody<B>;

/** One route family's table. */
export type IdentityRouteTable = readonly IdentityRoute<unknown>[];

/**
 * Types one table row, inferring the body type of `handle` from the row's decoder.
 *
 * @example
 * route({ method: 'POST', path: '/identity/v1/logout', callers: { user: true, restricted: true }, doc, handle });
 */
export function route<B = unknown>(definition: IdentityRoute<B>): IdentityRoute<unknown> {
  return definition as IdentityRoute<unknown>;
}

async function decode<B>(
  kernel: IdentityKernel,
  exchange: Exchange,
  decoder: BodyDecoder<B> | undefined,
  limitBytes: number | undefined,
): Promise<B> {
  const json = await readIdentityJson(kernel, exchange, limitBytes);
  const decoded = decoder === undefined ? decodeBody(json, {}) : decoder(json, kernel);
  if (decoded === undefined) throw new IdentityError('request_invalid');
  return decoded as B;
}

function routeCall<B>(kernel: IdentityKernel, services: IdentityServices, row: IdentityRoute<B>, exchange: Exchange) {
  const context = getIdentityContext(exchange);
  const at = requestTime(exchange);
  const call: RouteCall<B> = {
    exchange,
    kernel,
    services,
    at,
    context,
    caller: () => {
      if (context === undefined) throw new IdentityError('authentication_required');
      return { exchange, at, context };
    },
    body: () => decode(kernel, exchange, row.body, row.bodyLimitBytes),
    uuid: (name) => {
      const value = exchange.pathParam(name);
      if (value === undefined || !isUuidV7(value)) throw new IdentityError('request_invalid');
      return value;
    },
  };
  return call;
}

/**
 * Registers every row of `tables` on `router` with its stages, all handlers sharing one set of
 * domain services built from `kernel`; each row's span (`identity.route <METHOD> <path>`) covers
 * them all.
 *
 * @example
 * mountRouteTables(kernel, router, [SESSION_ROUTES, PASSKEY_ROUTES]);
 */
export function mountRouteTables(
  kernel: IdentityKernel,
  router: Router,
  tables: readonly IdentityRouteTable[],
): Router {
  const services = identityServices(kernel);
  for (const row of tables.flat()) {
    const chain: Middleware[] = [tracedRoute(row.method, row.path, row.signIn)];
    const available = row.available;
    if (available !== undefined) {
      chain.push(async (_exchange, next) => {
        if (!available(kernel)) throw new IdentityError('not_found');
        await next();
      });
    }
    chain.push(...(row.before ?? []), callerGate(row.callers));
    if (row.rateLimit !== undefined) chain.push(rateLimited(kernel, row.rateLimit.policy, row.rateLimit.key));
    router.add(row.method, row.path, ...chain, (exchange: Exchange) =>
      row.handle(routeCall(kernel, services, row, exchange)),
    );
  }
  return router;
}

/**
 * `"METHOD path"` matchers of the rows that admit anonymous callers (a GET row also for HEAD):
 * where a failing session cookie is treated as absent (identity-http §2.1).
 *
 * @example
 * const anonymous = anonymousRouteMatchers([SESSION_ROUTES]);
 */
export function anonymousRouteMatchers(tables: readonly IdentityRouteTable[]): readonly RegExp[] {
  const matchers: RegExp[] = [];
  for (const row of tables.flat()) {
    if (row.callers.anonymous !== true) continue;
    const path = row.path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const methods = row.method === 'GET' ? 'GET|HEAD' : row.method;
    matchers.push(new RegExp(`^(?:${methods}) ${path}$`));
  }
  return matchers;
}
