import {
  BadRequestException,
  HttpException,
  Logger,
  MethodNotAllowedException,
  NotFoundException,
  PayloadTooLargeException,
} from '@nestjs/common';
import { BodyAlreadyConsumedError, internalServerError, methodNotAllowedError, type Exchange } from '@tessera/web';
import { idOf, validateInput, type Serializer } from './serializer.js';
import { databaseFailureAnswer } from './viewset-errors.js';
import { isImplemented, type ViewSet } from './viewset.js';
import { allowHeader, type ViewSetRoute, type ViewSetTarget } from './viewset-routes.js';

/** A ViewSet with everything its routes need, shared by `resource()` and `ViewSetModule`. */
export interface ViewSetBinding<T = unknown> {
  readonly viewSet: ViewSet<T>;
  readonly serializer: Serializer<T>;
  readonly bodyLimitBytes: number;
}

const logger = new Logger('ViewSet');

/**
 * Answers one ViewSet route (web-and-viewset §7.4): 405 before anything else, then body and
 * validation, then the operation, then the response from `toJson` only. Error answers are thrown
 * as `HttpException`s so each host renders them its own way (router error handler, Nest filters).
 * Database failures get the statuses of `databaseFailureAnswer` (400, 409, 503), other errors 500.
 */
export async function runViewSetRoute(
  exchange: Exchange,
  binding: ViewSetBinding,
  route: ViewSetRoute,
  id?: string,
): Promise<void> {
  const { viewSet, serializer } = binding;
  if (!isImplemented(viewSet, route.operation)) throw methodNotAllowed(exchange, viewSet, route.target);
  try {
    if (route.body !== 'none') {
      const body = await readJsonBody(exchange, exchange.bodyLimitBytes ?? binding.bodyLimitBytes);
      exchange.setInput(await validateInput(serializer, body, route.body === 'partial'));
    }
    await answer(exchange, binding, route, id as string);
  } catch (error) {
    if (error instanceof MethodNotAllowedException) throw methodNotAllowed(exchange, viewSet, route.target);
    if (error instanceof HttpException) throw error;
    const failure = databaseFailureAnswer(error);
    if (failure !== undefined) {
      // The kind and the driver's code only: driver messages can quote the refused values.
      if (failure.kind === 'unavailable')
        logger.warn(
          `Database unavailable in ${route.operation} (${exchange.method} ${exchange.path})${requestId(exchange)}: ${codeOf(error)}`,
        );
      throw failure.exception;
    }
    logger.error(
      `Unhandled error in ${route.operation} (${exchange.method} ${exchange.path})${requestId(exchange)}: ${describe(error)}`,
    );
    throw internalServerError();
  }
}

/** 405 for a method a ViewSet path does not map (OPTIONS, POST on an item, ...). */
export function answerUnmapped(exchange: Exchange, viewSet: object, target: ViewSetTarget): never {
  throw methodNotAllowed(exchange, viewSet, target);
}

async function answer(exchange: Exchange, binding: ViewSetBinding, route: ViewSetRoute, id: string): Promise<void> {
  const { viewSet, serializer } = binding;
  switch (route.operation) {
    case 'list': {
      const items = await viewSet.list(exchange);
      if (!Array.isArray(items)) throw new TypeError('ViewSet list() must resolve to an array');
      return exchange.respond({ status: 200, body: items.map((item) => serializer.toJson(item)) });
    }
    case 'create': {
      const model = await viewSet.create(exchange);
      const body = serializer.toJson(model);
      const modelId = idOf(serializer, model);
      const headers =
        modelId === undefined
          ? undefined
          : { location: `${collectionPath(exchange.path)}/${encodeURIComponent(modelId)}` };
      return exchange.respond({ status: 201, body, headers });
    }
    case 'retrieve': {
      const model = await viewSet.retrieve(exchange, id);
      if (model === null || model === undefined) throw notFound();
      return exchange.respond({ status: 200, body: serializer.toJson(model) });
    }
    case 'update':
      return exchange.respond({ status: 200, body: serializer.toJson(await viewSet.update(exchange, id)) });
    case 'partialUpdate':
      return exchange.respond({ status: 200, body: serializer.toJson(await viewSet.partialUpdate!(exchange, id)) });
    case 'delete': {
      const deleted = await viewSet.delete(exchange, id);
      if (deleted === false) throw notFound();
      if (deleted !== true) throw new TypeError('ViewSet delete() must resolve to a boolean');
      return exchange.respond({ status: 204 });
    }
  }
}

/**
 * The JSON body under the ViewSet limit: 415 and malformed-JSON answers come from
 * `exchange.readJson`; over the limit is 400 on ViewSet routes (§7.4), never 413.
 */
async function readJsonBody(exchange: Exchange, limitBytes: number): Promise<unknown> {
  try {
    return await exchange.readJson({ limitBytes });
  } catch (error) {
    if (error instanceof PayloadTooLargeException) {
      throw new BadRequestException({ statusCode: 400, message: 'Payload Too Large', error: 'Bad Request' });
    }
    // readJson judged the content type first; a parser ahead of us (one the ViewSetModule body
    // gate could not route around) already turned the body into `req.body`.
    if (error instanceof BodyAlreadyConsumedError) return (exchange.raw.req as { body?: unknown }).body;
    throw error;
  }
}

function methodNotAllowed(exchange: Exchange, viewSet: object, target: ViewSetTarget): HttpException {
  exchange.setHeader('allow', allowHeader(viewSet, target));
  return methodNotAllowedError();
}

function notFound(): HttpException {
  return new NotFoundException({ statusCode: 404, message: 'Not Found' });
}

/** The request path of a POST on the collection, without its optional trailing `/`. */
function collectionPath(path: string): string {
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

function requestId(exchange: Exchange): string {
  const header = exchange.raw.res.getHeader('x-request-id');
  const id = header ?? exchange.attributes.get('requestId');
  return typeof id === 'string' || typeof id === 'number' ? ` [request ${id}]` : '';
}

/** `DriverException (ECONNREFUSED)`: the error's class and the first driver code in its chain, nothing it quotes. */
function codeOf(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return `${name} (${code})`;
    current =
      (current as { cause?: unknown; previous?: unknown }).cause ?? (current as { previous?: unknown }).previous;
  }
  return name;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}
