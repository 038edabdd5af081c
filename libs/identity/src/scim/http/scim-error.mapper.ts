import { Logger } from '@nestjs/common';
import type { ErrorMapper, Exchange, RouterErrorRenderer } from '@tessera/web';
import { IdentityError, type IdentityErrorCode } from '../../errors/identity.errors.js';
import { StoreError } from '../../errors/store.errors.js';
import { getRequestId } from '../../http/identity-exchange.js';
import { ScimError } from '../scim.errors.js';
import { isScimPath, respondScimError } from './scim-response.js';

const logger = new Logger('IdentityScim');

/** Fixed SCIM answers of the identity codes that can reach a SCIM path (pipeline stages, store reads). */
const FROM_IDENTITY: Partial<Record<IdentityErrorCode, ScimError>> = {
  authentication_required: new ScimError(401, undefined, 'Authentication is required'),
  invalid_credentials: new ScimError(401, undefined, 'Authentication failed'),
  request_invalid: new ScimError(400, 'invalidSyntax', 'The request is not valid'),
  not_found: new ScimError(404, undefined, 'The resource was not found'),
  method_not_allowed: new ScimError(405, undefined, 'The method is not supported on this resource'),
  conflict: new ScimError(409, undefined, 'The resource changed; retry the request'),
  csrf_invalid: new ScimError(400, 'invalidSyntax', 'The request is not valid'),
};
const UNAVAILABLE = new ScimError(503, undefined, 'The provisioning service is temporarily unavailable');
const INTERNAL = new ScimError(500, undefined, 'The provisioning operation failed');

/**
 * The SCIM answer of any error thrown on a SCIM path: a {@link ScimError} as it is, an identity
 * error through a fixed table, a store outage 503, anything else 500. Never exception text.
 *
 * @example
 * respondScimError(exchange, toScimError(error));
 */
export function toScimError(error: unknown): ScimError {
  if (error instanceof ScimError) return error;
  if (error instanceof IdentityError)
    return FROM_IDENTITY[error.code] ?? (error.status === 503 ? UNAVAILABLE : INTERNAL);
  if (error instanceof StoreError && (error.code === 'unavailable' || error.code === 'internal')) return UNAVAILABLE;
  return INTERNAL;
}

/**
 * Answers an identity error code on a SCIM path (the pre-route stages call this through
 * `respondIdentityError`).
 *
 * @example
 * respondScimIdentityError(exchange, 'request_invalid');
 */
export function respondScimIdentityError(
  exchange: Exchange,
  code: IdentityErrorCode,
  retryAfterSeconds?: number,
): void {
  respondScimError(exchange, toScimError(new IdentityError(code)), retryAfterSeconds);
}

/**
 * A `TESSERA_ERROR_MAPPER` claiming every error on `/scim/v2/**` (identity-http §8.2: the RFC 7644
 * envelope there). 5xx answers log the error's class and the request id only.
 *
 * @example
 * { provide: TESSERA_ERROR_MAPPER, useValue: [scimErrorMapper, oauthErrorMapper, identityErrorMapper] }
 */
export const scimErrorMapper: ErrorMapper = (error, exchange) => {
  if (!isScimPath(exchange.path)) return false;
  const answer = toScimError(error);
  if (answer.status >= 500) {
    const cause = error instanceof IdentityError || error instanceof ScimError ? error.cause : error;
    logger.error(`${answer.status} (${describe(cause ?? error)}) request ${getRequestId(exchange) ?? '-'}`);
  }
  respondScimError(exchange, answer, error instanceof IdentityError ? error.retryAfterSeconds : undefined);
  return true;
};

/**
 * The router's own answers under `/scim/v2/`: another method on a known path 405 (with the
 * router's `Allow`), a malformed percent-escape 400 `invalidSyntax` — both in the SCIM envelope.
 *
 * @example
 * { provide: TESSERA_ROUTER_ERROR_RENDERER, useValue: [identityRouterErrorRenderer, scimRouterErrorRenderer] }
 */
export const scimRouterErrorRenderer: RouterErrorRenderer = {
  pathPrefix: '/scim/v2/',
  render(error, exchange) {
    respondScimIdentityError(exchange, error.kind === 'method_not_allowed' ? 'method_not_allowed' : 'request_invalid');
  },
};

function describe(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
