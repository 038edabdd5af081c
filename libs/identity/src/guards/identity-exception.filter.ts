import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { TESSERA_EXCHANGE, type Exchange } from '@tessera/web';
import type { ServerResponse } from 'node:http';
import { IdentityError, identityErrorBody } from '../errors/identity.errors.js';
import { getRequestId } from '../http/identity-exchange.js';

/**
 * Renders `IdentityError`s thrown in Nest controllers and guards as the identity envelope
 * (identity-http §8.1): fixed message and retryability, `Cache-Control: no-store`, request id.
 */
@Catch(IdentityError)
export class IdentityExceptionFilter implements ExceptionFilter<IdentityError> {
  catch(error: IdentityError, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<ServerResponse>();
    if (response.headersSent) return;
    const exchange = http.getRequest<Record<symbol, Exchange | undefined>>()[TESSERA_EXCHANGE];
    const requestId = exchange === undefined ? undefined : getRequestId(exchange);
    const body = JSON.stringify(identityErrorBody(error.code, requestId));
    response.statusCode = error.status;
    response.setHeader('content-type', 'application/json; charset=utf-8');
    response.setHeader('cache-control', 'no-store');
    if (error.retryAfterSeconds !== undefined) response.setHeader('retry-after', String(error.retryAfterSeconds));
    response.setHeader('content-length', Buffer.byteLength(body));
    response.end(body);
  }
}
