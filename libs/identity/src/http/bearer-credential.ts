import type { Exchange } from '@tessera/web';
import type { OrganizationSelector } from '../context/capability-resolver.js';
import { organizationIdFromIdentityPath } from '../context/context-builder.js';
import type { IdentityContext } from '../context/identity-context.js';
import { hasOpaqueTokenShape } from '../tokens/secret-token.format.js';
import { getRequestId, getRequestTime, IDENTITY_ATTRIBUTES } from './identity-exchange.js';
import { respondIdentityError } from './identity-response.js';

/** What a bearer resolver is given: a token of the right outer shape and the request's facts. */
export interface BearerRequest {
  readonly token: string;
  /** The organization the route names (identity path segment 4 or a host selector), if any. */
  readonly organizationId: string | undefined;
  readonly requestId: string;
  readonly requestTime: Date;
  /** The request, for the request facts of an audit event a resolution writes. */
  readonly exchange?: Exchange;
}

/** Outcome of a bearer resolution: the request's context, or why the bearer is refused. */
export type BearerResolution =
  | { readonly ok: true; readonly context: IdentityContext }
  | { readonly ok: false; readonly code: 'invalid_credentials' | 'service_unavailable' };

/**
 * Resolves `Authorization: Bearer` tokens (identity-http §2.1): device access tokens first, then
 * service credentials; an outage answers 503 without trying the next kind.
 *
 * @example
 * const resolver: BearerResolver = { resolve: async () => ({ ok: false, code: 'invalid_credentials' }) };
 */
export interface BearerResolver {
  resolve(request: BearerRequest): Promise<BearerResolution>;
}

/**
 * Tries `resolvers` in order (identity-http §2.1: device access tokens, then service credentials):
 * the first success answers; `invalid_credentials` moves on to the next kind; an outage
 * (`service_unavailable`) answers 503 at once without trying the others. Neither kind accepting the
 * token → `invalid_credentials`.
 *
 * @example
 * const bearer = new CompositeBearerResolver([deviceTokens, serviceCredentials]);
 */
export class CompositeBearerResolver implements BearerResolver {
  constructor(private readonly resolvers: readonly BearerResolver[]) {}

  async resolve(request: BearerRequest): Promise<BearerResolution> {
    for (const resolver of this.resolvers) {
      const result = await resolver.resolve(request);
      if (result.ok || result.code !== 'invalid_credentials') return result;
    }
    return { ok: false, code: 'invalid_credentials' };
  }
}

const BEARER = /^Bearer ([^ ]+)$/i;

/**
 * The bearer token of the request's `Authorization` headers: exactly one header, scheme `Bearer`,
 * one space, and a token of the opaque shape (20..512 chars, one `.`, both sides base64url
 * characters); `undefined` for anything else.
 *
 * @example
 * parseBearerToken(exchange.headerValues('authorization')); // '0190…7c1f.Xc3…'
 */
export function parseBearerToken(values: readonly string[]): string | undefined {
  if (values.length !== 1) return undefined;
  const token = BEARER.exec(values[0]!)?.[1];
  return hasOpaqueTokenShape(token) ? token : undefined;
}

/**
 * Stage 4 for a request carrying `Authorization` (never together with a session cookie, which the
 * caller refuses first): a malformed header or a token no resolver accepts → 401
 * `invalid_credentials`, an outage → 503, otherwise the context goes on the exchange. Bearer
 * requests carry no session, so CSRF does not apply to them.
 *
 * @example
 * if (authorization.length > 0) return resolveBearer(exchange, next, options.bearer, options.organizationSelectors);
 */
export async function resolveBearer(
  exchange: Exchange,
  next: () => Promise<void>,
  resolver: BearerResolver | undefined,
  selectors: readonly OrganizationSelector[] = [],
): Promise<void> {
  const token = parseBearerToken(exchange.headerValues('authorization'));
  if (token === undefined || resolver === undefined) return respondIdentityError(exchange, 'invalid_credentials');
  const organizationId =
    organizationIdFromIdentityPath(exchange.path) ??
    selectors.map((select) => select(exchange.path)).find((id) => id !== undefined);
  let result: BearerResolution;
  try {
    result = await resolver.resolve({
      token,
      organizationId,
      requestId: getRequestId(exchange) ?? '',
      requestTime: getRequestTime(exchange) ?? new Date(),
      exchange,
    });
  } catch {
    return respondIdentityError(exchange, 'service_unavailable');
  }
  if (!result.ok) return respondIdentityError(exchange, result.code);
  exchange.attributes.set(IDENTITY_ATTRIBUTES.context, result.context);
  await next();
}
