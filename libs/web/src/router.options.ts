import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';
import type { Exchange } from './exchange.js';
import type { Middleware } from './pipeline.js';
import type { Router } from './router/router.js';

/** Multi-provider token: `{ order, middleware }` (or an array of them) run before the router for every request. */
export const TESSERA_PIPELINE_MIDDLEWARE: unique symbol = Symbol('TESSERA_PIPELINE_MIDDLEWARE');

/** Multi-provider token: an {@link ErrorMapper} (or an array) that may claim errors thrown by routes. */
export const TESSERA_ERROR_MAPPER: unique symbol = Symbol('TESSERA_ERROR_MAPPER');

/**
 * Multi-provider token: a {@link RouterErrorRenderer} (or an array) rendering the router's own
 * 400/405 answers for the paths under its prefix.
 */
export const TESSERA_ROUTER_ERROR_RENDERER: unique symbol = Symbol('TESSERA_ROUTER_ERROR_RENDERER');

/** The resolved `RouterModule.forRoot` configuration. */
export const ROUTER_MODULE_CONFIG: unique symbol = Symbol('ROUTER_MODULE_CONFIG');

/** A pre-route middleware and its position (identity uses 100–400). */
export interface PipelineMiddlewareContribution {
  order: number;
  middleware: Middleware;
}

/** Answers an error and returns `true` when it claims it; unclaimed errors get web-and-viewset §5.2. */
export type ErrorMapper = (error: unknown, exchange: Exchange) => boolean;

/** A router given directly, or built by a factory with Nest providers injected. */
export type RouterEntry =
  | { useValue: Router }
  | {
      useFactory: (...deps: any[]) => Router | Promise<Router>;
      inject?: (InjectionToken | OptionalFactoryDependency)[];
    };

/** Options of the merged route table and its mounting. */
export interface RouterModuleOptions {
  /**
   * `'express'`: one Express middleware ahead of Nest's routes (after `app.use` middleware such as
   * helmet or cors). `'server'`: radix routes are dispatched on the HTTP server's `request` event
   * before Express; Tessera pipeline middleware still runs, Express middleware does not.
   * @default 'express'
   */
  mount?: 'express' | 'server';
  /** @default false */
  strictTrailingSlash?: boolean;
  /** @default 'respond' */
  methodNotAllowed?: 'respond' | 'next';
  /** Body limit for radix handlers. @default 1048576 */
  bodyLimitBytes?: number;
  /**
   * Match with generated code (compiled once all routes are registered, at bootstrap); `false`
   * keeps the interpreted tree, for hosts that forbid code generation from strings.
   * @default true where the runtime allows `new Function`, else false
   */
  compile?: boolean;
  /** Body limit of Nest's own JSON and urlencoded parsers (Nest controllers); unset keeps Nest's default (100 kB). */
  nestBodyLimitBytes?: number;
}

/**
 * Which listener serves a registration's routes: `'public'` (the application's own HTTP server) or
 * `'management'` (the management listener when {@link RouterModuleConfig.management} is set, else
 * the public one).
 */
export type RouterListener = 'public' | 'management';

/**
 * A second, plain Node HTTP server for operator routes (health, readiness, metrics), so they stay
 * off the public listener (Keycloak's management interface). It starts while the application
 * initialises (`app.init()`, before the bootstrap hooks), serves only the routes registered with
 * `listener: 'management'` (no pipeline middleware, no Nest routes; anything else is 404), and
 * closes with the application. A port already in use fails `app.init()`.
 *
 * @example
 * RouterModule.forRoot({ management: { port: 9000 } })
 */
export interface ManagementListenerOptions {
  /** TCP port; `0` picks a free one (read it from `ManagementListener.address()`). */
  port: number;
  /**
   * Interface to listen on. Unset listens on every interface, like `app.listen(port)`: Kubernetes
   * probes connect to the pod address. Keep the port out of the Service/Ingress, or set
   * `'127.0.0.1'` when only local agents read it.
   * @default every interface
   */
  host?: string;
}

/** `RouterModule.forRoot(...)` configuration. */
export interface RouterModuleConfig {
  routers?: RouterEntry[];
  middleware?: PipelineMiddlewareContribution[];
  options?: RouterModuleOptions;
  /**
   * Serve the `'management'` registrations on a separate listener; unset, they join the public
   * route table. @default undefined (no management listener)
   */
  management?: ManagementListenerOptions;
  /** Modules whose providers the router factories inject. */
  imports?: ModuleMetadata['imports'];
}

/** `RouterModule.forRootAsync(...)`: a factory resolving to {@link RouterModuleConfig}. */
export interface RouterModuleAsyncConfig {
  imports?: ModuleMetadata['imports'];
  inject?: (InjectionToken | OptionalFactoryDependency)[];
  useFactory: (...deps: any[]) => RouterModuleConfig | Promise<RouterModuleConfig>;
}

/** `RouterModule.forFeature(...)` configuration. */
export interface RouterFeatureConfig {
  routers: RouterEntry[];
  /** Modules whose providers the router factories inject. */
  imports?: ModuleMetadata['imports'];
  /** Names this registration in conflict messages. @default 'RouterModule.forFeature #n' */
  name?: string;
  /** The listener serving these routes. @default 'public' */
  listener?: RouterListener;
}
