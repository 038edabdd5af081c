import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { Exchange, type ResponseSink } from './exchange.js';

/** What {@link createTestExchange} captured of the response. */
export interface CapturedResponse {
  status: number;
  headers: Record<string, string | number | string[]>;
  /** The body bytes as a UTF-8 string (`''` when none was sent). */
  text: string;
  /** The body parsed as JSON, `undefined` when it is not JSON. */
  json: unknown;
  ended: boolean;
}

/** Input of {@link createTestExchange}. */
export interface TestExchangeInit {
  /** @default 'GET' */
  method?: string;
  /** Request target: path plus optional query. @default '/' */
  url?: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** @default { address: '127.0.0.1', port: 40000 } */
  peer?: { address: string; port: number };
}

/**
 * An in-memory exchange with a captured response, for unit tests of middleware and handlers.
 *
 * @example
 * const { exchange, response } = createTestExchange({ method: 'GET', url: '/users/1' });
 * await pipeline.handle(exchange);
 * expect(response.status).toBe(200);
 */
export function createTestExchange(init: TestExchangeInit = {}): { exchange: Exchange; response: CapturedResponse } {
  const rawHeaders: string[] = [];
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(init.headers ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) rawHeaders.push(name, v);
    const lower = name.toLowerCase();
    headers[lower] = lower === 'set-cookie' ? values : values.join(', ');
  }
  if (init.body !== undefined && headers['content-length'] === undefined) {
    headers['content-length'] = String(Buffer.byteLength(init.body));
  }
  const req = Readable.from(init.body === undefined ? [] : [Buffer.from(init.body)]) as unknown as IncomingMessage;
  Object.assign(req, {
    method: init.method ?? 'GET',
    url: init.url ?? '/',
    headers,
    rawHeaders,
    socket: { remoteAddress: init.peer?.address ?? '127.0.0.1', remotePort: init.peer?.port ?? 40000 },
  });
  const response: CapturedResponse = { status: 200, headers: {}, text: '', json: undefined, ended: false };
  const events = new EventEmitter();
  let written = false;
  const append = (chunk: string | Uint8Array) => {
    written = true;
    response.text += Buffer.from(chunk).toString('utf8');
  };
  const sink = {
    get statusCode() {
      return response.status;
    },
    set statusCode(value: number) {
      response.status = value;
    },
    get headersSent() {
      return response.ended || written;
    },
    write(chunk: string | Uint8Array) {
      append(chunk);
      return true;
    },
    once(event: string, listener: (...args: unknown[]) => void) {
      events.once(event, listener);
      return sink;
    },
    removeListener(event: string, listener: (...args: unknown[]) => void) {
      events.removeListener(event, listener);
      return sink;
    },
    setHeader(name: string, value: string | number | readonly string[]) {
      response.headers[name.toLowerCase()] = Array.isArray(value) ? [...value] : (value as string | number);
      return sink;
    },
    getHeader(name: string) {
      return response.headers[name.toLowerCase()];
    },
    hasHeader(name: string) {
      return name.toLowerCase() in response.headers;
    },
    appendHeader(name: string, value: string | readonly string[]) {
      const key = name.toLowerCase();
      const prior = response.headers[key];
      const list = prior === undefined ? [] : Array.isArray(prior) ? prior : [String(prior)];
      response.headers[key] = list.concat(value as string | string[]);
      return sink;
    },
    end(chunk?: unknown) {
      response.ended = true;
      if (chunk !== undefined && typeof chunk !== 'function') append(chunk as string | Uint8Array);
      if (written) {
        try {
          response.json = JSON.parse(response.text);
        } catch {
          response.json = undefined;
        }
      }
      events.emit('close');
      return sink;
    },
  } as unknown as ResponseSink;
  return { exchange: new Exchange(req, sink), response };
}
