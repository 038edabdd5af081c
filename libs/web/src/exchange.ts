import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BodyAlreadyConsumedError,
  malformedJsonError,
  NoValidatedInputError,
  payloadTooLargeError,
  ResponseAlreadySentError,
  unsupportedMediaTypeError,
} from './errors.js';
import { readRequestBody } from './body-reader.js';
import { ResponseStream } from './response-stream.js';

/** `req[TESSERA_EXCHANGE]`: the exchange of a request, for Nest guards and param decorators. */
export const TESSERA_EXCHANGE: unique symbol = Symbol.for('tessera.exchange');

/** Default body limit of radix handlers: 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** What `exchange.respond(...)` sends (web-and-viewset §5.1). */
export interface ResponseInit {
  /** @default 200 */
  status?: number;
  body?: unknown;
  headers?: Record<string, string | number | readonly string[]>;
}

/** The parts of `http.ServerResponse` an exchange writes to (so tests can capture them in memory). */
export type ResponseSink = Pick<
  ServerResponse,
  | 'statusCode'
  | 'setHeader'
  | 'getHeader'
  | 'appendHeader'
  | 'hasHeader'
  | 'end'
  | 'headersSent'
  | 'write'
  | 'once'
  | 'removeListener'
>;

/** The direct TCP peer of a request (never derived from forwarded headers). */
export interface Peer {
  readonly address: string;
  readonly port: number;
}

const INPUT: unique symbol = Symbol('tessera.input');
const NO_INPUT = Symbol('tessera.no-input');
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;

/**
 * One request/response pair as the router sees it (web-and-viewset §2). Wraps Node's (or
 * Express's) `req`/`res`; the request line is parsed once, everything else lazily.
 *
 * @example
 * router.get('/hello/:name', (ex) => ex.respond({ body: { hello: ex.pathParam('name') } }));
 */
export class Exchange {
  /** Upper-case request method. */
  readonly method: string;
  /** Raw request path, without query string, not decoded. */
  readonly path: string;
  /** Raw query string without the leading `?` (`''` when absent). */
  readonly rawQuery: string;
  /**
   * The authority of an absolute-form request target (`GET http://host/path`, RFC 9112 §3.2.2),
   * lower-cased; `undefined` for the usual origin-form. `path` is the target's path either way.
   */
  readonly targetAuthority: string | undefined;
  /** Body limit of the router that matched this request (`undefined` outside radix routes). */
  bodyLimitBytes: number | undefined;
  private attrs: Map<string, unknown> | undefined;
  private params: Readonly<Record<string, string>> | undefined;
  private body: Promise<Buffer> | undefined;
  private [INPUT]: unknown = NO_INPUT;
  private sent = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ResponseSink,
  ) {
    this.method = req.method ?? 'GET';
    let url = req.url ?? '/';
    const absolute = url.charCodeAt(0) === 47 /* '/' */ ? null : ABSOLUTE_FORM.exec(url);
    if (absolute === null) {
      this.targetAuthority = undefined;
    } else {
      this.targetAuthority = absolute[1]!.toLowerCase();
      url = url.slice(absolute[0].length);
      if (url.charCodeAt(0) !== 47) url = `/${url}`;
    }
    const q = url.indexOf('?');
    if (q === -1) {
      this.path = url;
      this.rawQuery = '';
    } else {
      this.path = url.slice(0, q);
      this.rawQuery = url.slice(q + 1);
    }
  }

  /** The underlying adapter objects. Escape hatch; Tessera code does not use it. */
  get raw(): { req: IncomingMessage; res: ResponseSink } {
    return { req: this.req, res: this.res };
  }

  /** The direct TCP peer. */
  get peer(): Peer {
    const socket = this.req.socket;
    return { address: socket?.remoteAddress ?? '', port: socket?.remotePort ?? 0 };
  }

  /** State shared by all middleware of one request. */
  get attributes(): Map<string, unknown> {
    return (this.attrs ??= new Map());
  }

  /** `true` once a response was sent. */
  get responded(): boolean {
    return this.sent;
  }

  /** The single value of a header (case-insensitive name), `undefined` when absent. */
  header(name: string): string | undefined {
    const value = this.req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  /** Every value of a header in arrival order, so callers can reject duplicates. */
  headerValues(name: string): string[] {
    const wanted = name.toLowerCase();
    const raw = this.req.rawHeaders;
    const values: string[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      if (raw[i]!.length === wanted.length && raw[i]!.toLowerCase() === wanted) values.push(raw[i + 1]!);
    }
    return values;
  }

  /** Percent-decoded value of `:name` (or `'*'` for the wildcard); `undefined` if absent. */
  pathParam(name: string): string | undefined {
    const params = this.params;
    return params !== undefined && Object.hasOwn(params, name) ? params[name] : undefined;
  }

  /** Frozen copy of all decoded parameters. */
  pathParams(): Readonly<Record<string, string>> {
    return Object.freeze({ ...(this.params ?? {}) });
  }

  /** @internal Set by the router after a match, with decoded values. */
  setPathParams(params: Readonly<Record<string, string>>): void {
    this.params = params;
  }

  /** Reads the raw body once (413 past `limitBytes`); a second read returns the same buffer. */
  readBody(options: { limitBytes: number }): Promise<Buffer> {
    return (this.body ??= this.loadBody(options.limitBytes));
  }

  /** Reads a JSON body: `application/json` only (415), malformed → 400. */
  async readJson<T = unknown>(options: { limitBytes: number }): Promise<T> {
    const type = this.header('content-type');
    if (type === undefined || !JSON_TYPE.test(type)) throw unsupportedMediaTypeError();
    const charset = CHARSET.exec(type)?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw unsupportedMediaTypeError();
    const buffer = await this.readBody(options);
    try {
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(buffer)) as T;
    } catch {
      throw malformedJsonError();
    }
  }

  /** The validated input DTO of a ViewSet `create`/`update`/`partialUpdate`; throws elsewhere. */
  input<T>(): T {
    if (this[INPUT] === NO_INPUT) throw new NoValidatedInputError();
    return this[INPUT] as T;
  }

  /** @internal Set by the ViewSet layer after validation. */
  setInput(value: unknown): void {
    this[INPUT] = value;
  }

  /** Sets a response header (replacing any previous value). */
  setHeader(name: string, value: string | number | readonly string[]): this {
    this.res.setHeader(name, value);
    return this;
  }

  /** Appends a response header value (e.g. `Set-Cookie`). */
  appendHeader(name: string, value: string | readonly string[]): this {
    this.res.appendHeader(name, value);
    return this;
  }

  /** Sends the response (web-and-viewset §5.1); a second call throws {@link ResponseAlreadySentError}. */
  respond(init: ResponseInit): void {
    if (this.sent || this.res.headersSent) throw new ResponseAlreadySentError();
    this.sent = true;
    const res = this.res;
    this.writeHead(init);
    const body = init.body;
    let payload: string | Uint8Array | undefined;
    let type: string;
    if (body === undefined) {
      res.end();
      return;
    } else if (typeof body === 'string') {
      payload = body;
      type = 'text/plain; charset=utf-8';
    } else if (body instanceof Uint8Array) {
      payload = body;
      type = 'application/octet-stream';
    } else {
      payload = JSON.stringify(body);
      type = 'application/json; charset=utf-8';
    }
    if (!res.hasHeader('content-type')) res.setHeader('content-type', type);
    res.setHeader('content-length', typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength);
    if (this.method === 'HEAD') res.end();
    else res.end(payload);
  }

  /**
   * Starts a response whose body is written in chunks (see {@link ResponseStream}): the status and
   * headers of `init` (`Content-Type` defaults to `application/octet-stream`), no `Content-Length`.
   * A HEAD request gets the headers only (the stream is already ended). Counts as the one response:
   * `respond` afterwards throws {@link ResponseAlreadySentError}.
   *
   * @example
   * const body = exchange.respondStream({ headers: { 'content-type': 'text/csv; charset=utf-8' } });
   * if (await body.write('a,b\r\n')) body.end();
   */
  respondStream(init: Omit<ResponseInit, 'body'> = {}): ResponseStream {
    if (this.sent || this.res.headersSent) throw new ResponseAlreadySentError();
    this.sent = true;
    this.writeHead(init);
    if (!this.res.hasHeader('content-type')) this.res.setHeader('content-type', 'application/octet-stream');
    return new ResponseStream(this.res, this.method === 'HEAD');
  }

  private writeHead(init: Omit<ResponseInit, 'body'>): void {
    this.res.statusCode = init.status ?? 200;
    if (init.headers !== undefined) {
      for (const name in init.headers) this.res.setHeader(name, init.headers[name]!);
    }
  }

  private async loadBody(limitBytes: number): Promise<Buffer> {
    const req = this.req as IncomingMessage & { rawBody?: Buffer; body?: unknown };
    if (Buffer.isBuffer(req.rawBody)) {
      if (req.rawBody.byteLength > limitBytes) throw payloadTooLargeError();
      return req.rawBody;
    }
    if (req.readableEnded && req.body !== undefined) throw new BodyAlreadyConsumedError();
    return readRequestBody(req, limitBytes);
  }
}
