import { Logger } from '@nestjs/common';
import type { ErrorMapper } from '@tessera/web';
import { IdentityError } from '../errors/identity.errors.js';
import { StoreError } from '../errors/store.errors.js';
import { respondIdentityError } from './identity-response.js';
import { isIdentityOwnedPath } from './pipeline-stages.js';
import { getRequestId } from './identity-exchange.js';

const logger = new Logger('Identity');

/**
 * The `TESSERA_ERROR_MAPPER` of the identity platform: an `IdentityError` anywhere (identity
 * routes, or identity guards on host routes) gets the identity envelope; a store read that fails
 * with `unavailable`/`internal` gets 503 `service_unavailable` (identity-model §9.4); any other
 * error on an identity-owned path gets 500 `internal_error`. Only the error's class and the
 * request id are logged: exception text can carry secrets.
 */
export const identityErrorMapper: ErrorMapper = (error, exchange) => {
  if (error instanceof IdentityError) {
    if (error.code === 'internal_error' || error.code === 'service_unavailable') {
      logger.error(`${error.code} (${describe(error.cause)}) request ${getRequestId(exchange) ?? '-'}`);
    }
    respondIdentityError(exchange, error.code, error.retryAfterSeconds);
    return true;
  }
  if (!isIdentityOwnedPath(exchange.path)) return false;
  if (error instanceof StoreError && (error.code === 'unavailable' || error.code === 'internal')) {
    logger.error(`service_unavailable (${describe(error)} ${error.code}) request ${getRequestId(exchange) ?? '-'}`);
    respondIdentityError(exchange, 'service_unavailable');
    return true;
  }
  logger.error(`internal_error (${describe(error)}) request ${getRequestId(exchange) ?? '-'}`);
  respondIdentityError(exchange, 'internal_error');
  return true;
};

function describe(error: unknown): string {
  if (error === undefined) return 'no cause';
  return error instanceof Error ? error.name : typeof error;
}
