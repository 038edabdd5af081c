import { HttpException, Logger } from '@nestjs/common';
import type { Exchange } from './exchange.js';
import { internalServerError } from './errors.js';
import type { ErrorMapper } from './router.options.js';

/**
 * Answers an error thrown by pipeline middleware or a route (web-and-viewset §5.2): a claiming
 * error mapper first, then a Nest `HttpException` as Nest renders it, else a generic 500 whose body
 * never carries the exception text (the text goes to the server log only).
 */
export class ErrorHandler {
  private readonly logger = new Logger('RouterModule');

  constructor(private readonly mappers: readonly ErrorMapper[] = []) {}

  handle(error: unknown, exchange: Exchange): void {
    if (exchange.responded || exchange.raw.res.headersSent) {
      this.logger.error(`Error after the response was sent (${exchange.method}): ${describe(error)}`);
      return;
    }
    try {
      for (const mapper of this.mappers) if (mapper(error, exchange)) return;
    } catch (mapperError) {
      this.logger.error(`Error mapper failed: ${describe(mapperError)}`);
      if (exchange.responded) return;
      return this.internal(exchange);
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const response = error.getResponse();
      const body = typeof response === 'string' ? { statusCode: status, message: response } : response;
      exchange.respond({ status, body });
      return;
    }
    this.logger.error(`Unhandled error in ${exchange.method} request${requestId(exchange)}: ${describe(error)}`);
    this.internal(exchange);
  }

  private internal(exchange: Exchange): void {
    exchange.respond({ status: 500, body: internalServerError().getResponse() });
  }
}

function requestId(exchange: Exchange): string {
  const id = exchange.raw.res.getHeader('x-request-id');
  return id === undefined ? '' : ` ${String(id)}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}
