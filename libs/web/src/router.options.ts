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

/** `RouterModule.forRoot(...)` configuration. */
export interface RouterModuleConfig {
  routers?: RouterEntry[];
  middleware?: PipelineMiddlewareContribution[];
  options?: RouterModuleOptions;
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
}
