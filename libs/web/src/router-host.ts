import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { onHttpAdapterInit, type HttpAdapter } from './adapter-init.hook.js';
import { ErrorHandler } from './error-handler.js';
import { ManagementListener } from './management-listener.js';
import { Exchange, TESSERA_EXCHANGE } from './exchange.js';
import { Pipeline } from './pipeline.js';
import { Router } from './router/router.js';
import { RouterRegistration } from './router-registration.js';
import {
  attachRouterErrorRenderers,
  deferredRouterError,
  respondRouterError,
  type RouterErrorRenderer,
} from './router-errors.js';
import {
  ROUTER_MODULE_CONFIG,
  TESSERA_ERROR_MAPPER,
  TESSERA_PIPELINE_MIDDLEWARE,
  TESSERA_ROUTER_ERROR_RENDERER,
  type ErrorMapper,
  type PipelineMiddlewareContribution,
  type RouterModuleConfig,
} from './router.options.js';

type Adapter = HttpAdapter;
type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Merges every registered router into one table when the HTTP adapter initialises (after the
 * app's own `app.use` calls, before Nest's body parsers and routes) and mounts the pipeline. With
 * a `management` listener configured, the `'management'` registrations go to that listener
 * instead, which starts here.
 */
@Injectable()
export class RouterHost implements OnApplicationShutdown {
  private readonly logger = new Logger('RouterModule');
  private pipeline: Pipeline | undefined;
  private errors: ErrorHandler | undefined;
  private renderers: readonly RouterErrorRenderer[] = [];
  private detach: (() => void) | undefined;
  /** The merged route table (available once the application is initialised). */
  router: Router | undefined;

  constructor(
    @Inject(ROUTER_MODULE_CONFIG) private readonly config: RouterModuleConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly discovery: DiscoveryService,
    private readonly moduleRef: ModuleRef,
    private readonly management: ManagementListener,
  ) {
    this.detach = onHttpAdapterInit(adapterHost, {
      after: async (adapter) => {
        if (adapter.getType() !== 'express') throw new Error('RouterModule supports the Express platform only');
        await this.install(adapter);
      },
    });
  }

  private async install(adapter: Adapter): Promise<void> {
    const options = this.config.options ?? {};
    const separate = this.config.management;
    const registrations = await this.registrations();
    const onManagement = (registration: RouterRegistration) =>
      separate !== undefined && registration.listener === 'management';
    const router = merge(
      new Router(options),
      registrations.filter((registration) => !onManagement(registration)),
    );
    if (separate !== undefined) {
      const operator = merge(
        new Router({ ...options, methodNotAllowed: 'respond' }),
        registrations.filter(onManagement),
      );
      await this.management.start(separate, operator);
    }
    const middleware = [
      ...(this.config.middleware ?? []),
      ...this.collect<PipelineMiddlewareContribution>(TESSERA_PIPELINE_MIDDLEWARE),
    ]
      .map((entry, index) => ({ ...entry, index }))
      .sort((a, b) => a.order - b.order || a.index - b.index);
    const pipeline = new Pipeline();
    for (const entry of middleware) pipeline.use(entry.middleware);
    pipeline.use(router.asMiddleware());
    this.router = router;
    this.pipeline = pipeline;
    this.errors = new ErrorHandler(this.collect<ErrorMapper>(TESSERA_ERROR_MAPPER));
    this.renderers = this.collect<RouterErrorRenderer>(TESSERA_ROUTER_ERROR_RENDERER).sort(
      (a, b) => b.pathPrefix.length - a.pathPrefix.length,
    );
    // The radix middleware goes first, so Nest's parsers (registered next) never consume its bodies.
    if (options.mount === 'server') this.mountOnServer(adapter);
    else adapter.use((req: IncomingMessage, res: ServerResponse, next: () => void) => this.handle(req, res, next));
    if (options.nestBodyLimitBytes !== undefined) {
      const limit = options.nestBodyLimitBytes;
      const express = adapter as Adapter & { useBodyParser(type: string, raw: boolean, opts: object): unknown };
      express.useBodyParser('json', false, { limit });
      express.useBodyParser('urlencoded', false, { limit, extended: true });
    }
    this.logger.log(`Mapped ${router.routes().length} radix routes (mount: ${options.mount ?? 'express'})`);
  }

  private mountOnServer(adapter: Adapter): void {
    const server = adapter.getHttpServer() as Server | undefined;
    if (server === undefined)
      throw new Error("RouterModule mount: 'server' needs the HTTP server; create the app with NestFactory.create");
    const listeners = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    const forward = (req: IncomingMessage, res: ServerResponse): void => {
      for (const listener of listeners) listener.call(server, req, res);
    };
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handle(req, res, () => forward(req, res)));
  }

  /** Runs the pipeline for one request; `fallThrough` continues to Express/Nest when nothing answered. */
  private handle(req: IncomingMessage, res: ServerResponse, fallThrough: () => void): void {
    const exchange = new Exchange(req, res);
    (req as IncomingMessage & { [TESSERA_EXCHANGE]?: Exchange })[TESSERA_EXCHANGE] = exchange;
    attachRouterErrorRenderers(exchange, this.renderers);
    this.pipeline!.handle(exchange).then(
      (answered) => {
        if (answered) return;
        // A gate ahead of the pipeline (ViewSet body gate) left its answer for after the pre-route stages.
        const deferred = deferredRouterError(req);
        if (deferred === undefined) fallThrough();
        else respondRouterError(exchange, deferred);
      },
      (error: unknown) => this.errors!.handle(error, exchange),
    );
  }

  private async registrations(): Promise<RouterRegistration[]> {
    const found = this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is RouterRegistration => instance instanceof RouterRegistration);
    const routers: Router[] = [];
    for (const entry of this.config.routers ?? []) {
      if ('useValue' in entry) routers.push(entry.useValue);
      else
        routers.push(
          await entry.useFactory(
            ...(entry.inject ?? []).map((token) => this.moduleRef.get(token as never, { strict: false })),
          ),
        );
    }
    return routers.length === 0 ? found : [new RouterRegistration('RouterModule.forRootAsync', routers), ...found];
  }

  private collect<T>(token: symbol): T[] {
    return this.discovery
      .getProviders()
      .filter((wrapper) => wrapper.token === token && wrapper.instance !== undefined)
      .flatMap((wrapper) => wrapper.instance as T | T[]);
  }

  onApplicationShutdown(): void {
    this.detach?.();
  }
}

/** Adds every route of `registrations` to `router` and compiles it (every route is in). */
function merge(router: Router, registrations: readonly RouterRegistration[]): Router {
  for (const registration of registrations) {
    for (const source of registration.routers) {
      for (const route of source.routes()) router.addRoute({ ...route, source: route.source ?? registration.source });
    }
  }
  return router.compile();
}
