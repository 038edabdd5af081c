import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import {
  deferRouterError,
  type Exchange,
  MALFORMED_PATH,
  malformedPathError,
  onHttpAdapterInit,
  respondRouterError,
  Router,
  RouterHost,
  RouteRegistrationError,
  TESSERA_EXCHANGE,
  type HttpAdapter,
} from '@tessera/web';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { VIEWSET_RUNTIME, type ViewSetRuntime } from './controller.factory.js';

type Adapter = HttpAdapter;
type Next = (error?: unknown) => void;
type BodyRequest = IncomingMessage & { rawBody?: Buffer };

/**
 * Keeps Nest's body parsers off ViewSet routes (and answers a malformed percent-encoded id with the
 * router's 400, as `resource()` does), so both paths read bodies with the same code and
 * answer the same (web-and-viewset §7.4): Nest's parsers run before any route and answer parse
 * errors and their own 100 kB limit outside every controller, in bodies of their own.
 *
 * Installed when the HTTP adapter initialises, like RouterModule's pipeline but ahead of it: after
 * the app's `app.use` middleware, before Nest's parsers. For a request on a ViewSet path (global prefix
 * included; Express's case and trailing-slash settings honoured) that has a body, it reads the
 * body itself, keeping at most `bodyLimitBytes + 1` bytes as `req.rawBody` (the exchange reads it
 * from there, 400 past the limit) and draining the rest; a finished request is one Nest's parsers
 * skip. Paths it cannot see (URI versioning, prefix exclusions) keep Nest's parser, and the
 * handlers then take the parsed `req.body`.
 */
@Injectable()
export class ViewSetBodyGate implements OnApplicationShutdown {
  private detach: (() => void) | undefined;

  constructor(
    @Inject(VIEWSET_RUNTIME) private readonly runtime: ViewSetRuntime,
    private readonly config: ApplicationConfig,
    adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
  ) {
    // The gate goes in before any other init hook's middleware (RouterModule's pipeline and the
    // parsers its `nestBodyLimitBytes` registers): a body parser ahead of it would leave nothing to gate.
    this.detach = onHttpAdapterInit(adapterHost, {
      before: (adapter) => {
        if (adapter.getType() !== 'express') throw new Error('ViewSetModule supports the Express platform only');
        this.install(adapter);
      },
    });
  }

  private install(adapter: Adapter): void {
    const express = adapter.getInstance() as { enabled?(setting: string): boolean };
    const caseSensitive = express.enabled?.('case sensitive routing') ?? false;
    const matcher = new Router({ strictTrailingSlash: express.enabled?.('strict routing') ?? false });
    const globalPrefix = this.config.getGlobalPrefix().replace(/^\/+|\/+$/g, '');
    for (const paths of this.runtime.paths) {
      for (const path of [paths.collection, paths.item]) {
        const full = globalPrefix === '' ? path : `/${globalPrefix}${path === '/' ? '' : path}`;
        register(matcher, caseSensitive ? full : full.toLowerCase());
      }
    }
    const limit = this.runtime.bodyLimitBytes;
    const pipelineAhead = this.hasRouterModule();
    adapter.use((req: BodyRequest, res: ServerResponse, next: Next) => {
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const path = query === -1 ? url : url.slice(0, query);
      const match = matcher.lookup('GET', caseSensitive ? path : path.toLowerCase());
      if (match === null) return next();
      // Express would answer its own 400 ("Failed to decode param"); answer the router's instead.
      if (hasMalformedParam(match.params)) {
        // Answered after (or, mounted on the server, by) the RouterModule pipeline, so its
        // pre-route stages (request id, ...) apply; bare only in apps without RouterModule.
        const exchange = (req as BodyRequest & { [TESSERA_EXCHANGE]?: Exchange })[TESSERA_EXCHANGE];
        if (exchange !== undefined && !exchange.responded) return respondRouterError(exchange, MALFORMED_PATH);
        if (!pipelineAhead) return sendMalformedPath(res);
        deferRouterError(req, MALFORMED_PATH);
        return next();
      }
      if (!hasUnreadBody(req)) return next();
      readCapped(req, limit).then((body) => {
        req.rawBody = body;
        next();
      }, next);
    });
  }

  private hasRouterModule(): boolean {
    try {
      return this.moduleRef.get(RouterHost, { strict: false }) !== undefined;
    } catch {
      return false;
    }
  }

  onApplicationShutdown(): void {
    this.detach?.();
  }
}

/** Two entries may differ only in letter case or parameter names: one matcher route serves both. */
function register(matcher: Router, path: string): void {
  try {
    matcher.get(path, noop);
  } catch (error) {
    if (!(error instanceof RouteRegistrationError) || !error.message.startsWith('Duplicate route')) throw error;
  }
}

function hasMalformedParam(params: Readonly<Record<string, string>>): boolean {
  for (const value of Object.values(params)) {
    if (!value.includes('%')) continue;
    try {
      decodeURIComponent(value);
    } catch {
      return true;
    }
  }
  return false;
}

function sendMalformedPath(res: ServerResponse): void {
  const body = JSON.stringify(malformedPathError().getResponse());
  res.statusCode = 400;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

function hasUnreadBody(req: BodyRequest): boolean {
  const framed = req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
  return framed && !req.readableEnded && req.rawBody === undefined;
}

/** The whole body when it fits, else its first `limit + 1` bytes (enough to know it is too large). */
function readCapped(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    req.on('data', (chunk: Buffer) => {
      if (kept > limit) return;
      const part = chunk.byteLength > limit + 1 - kept ? chunk.subarray(0, limit + 1 - kept) : chunk;
      chunks.push(part);
      kept += part.byteLength;
    });
    req.once('end', () => resolve(Buffer.concat(chunks, kept)));
    req.once('error', reject);
  });
}

function noop(): void {}
