import {
  BadRequestException,
  HttpException,
  InternalServerErrorException,
  MethodNotAllowedException,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';

/**
 * The router's own error answers (web-and-viewset §5.2), as Nest exceptions carrying the exact
 * bodies, so a radix route and a Nest controller render them identically.
 */

/** 400: a matched path whose parameter holds a malformed escape or invalid UTF-8. */
export const malformedPathError = (): HttpException =>
  new BadRequestException({ statusCode: 400, message: 'Malformed percent-encoding in path', error: 'Bad Request' });

/** 405 body; the `Allow` header is set by whoever answers. */
export const methodNotAllowedError = (): HttpException =>
  new MethodNotAllowedException({ statusCode: 405, message: 'Method Not Allowed' });

/** 413: a body over the limit. */
export const payloadTooLargeError = (): HttpException =>
  new PayloadTooLargeException({ statusCode: 413, message: 'Payload Too Large' });

/** 415: a JSON body sent with another content type. */
export const unsupportedMediaTypeError = (): HttpException =>
  new UnsupportedMediaTypeException({ statusCode: 415, message: 'Unsupported Media Type' });

/** 400: a body that is not valid JSON. */
export const malformedJsonError = (): HttpException =>
  new BadRequestException({ statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' });

/** 500 with the only body a server error ever gets: never the exception text. */
export const internalServerError = (): HttpException =>
  new InternalServerErrorException({ statusCode: 500, message: 'Internal server error' });

/** Thrown by a second `exchange.respond(...)` on the same exchange. */
export class ResponseAlreadySentError extends Error {
  override name = 'ResponseAlreadySentError';
  constructor() {
    super('A response was already sent for this exchange');
  }
}

/** A route handler (or its middleware) resolved without answering: a programming error, answered 500. */
export class HandlerDidNotRespondError extends Error {
  override name = 'HandlerDidNotRespondError';
  constructor(method: string, pattern: string) {
    super(`Route handler for ${method} ${pattern} resolved without calling exchange.respond()`);
  }
}

/**
 * The request body was consumed by a body parser registered ahead of the router and no raw copy
 * was kept: a configuration error, answered 500 with an actionable log line.
 */
export class BodyAlreadyConsumedError extends Error {
  override name = 'BodyAlreadyConsumedError';
  constructor() {
    super(
      'The request body was consumed before the Tessera router ran (a body parser registered with app.use ahead of it). ' +
        'Remove that parser, or create the app with NestFactory.create(AppModule, { rawBody: true }) so the raw body is kept.',
    );
  }
}

/** `exchange.input()` called where no ViewSet validated a body. */
export class NoValidatedInputError extends Error {
  override name = 'NoValidatedInputError';
  constructor() {
    super('exchange.input() is only available in ViewSet create, update and partialUpdate');
  }
}
