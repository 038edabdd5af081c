import {
  All,
  Controller,
  Inject,
  Param,
  Req,
  RequestMapping,
  RequestMethod,
  Res,
  UseGuards,
  UseInterceptors,
  type CanActivate,
  type Type,
} from '@nestjs/common';
import { Exchange, Router, TESSERA_EXCHANGE } from '@tessera/web';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Serializer } from './serializer.js';
import { answerUnmapped, runViewSetRoute, type ViewSetBinding } from './viewset-handler.js';
import type { ViewSet } from './viewset.js';
import { resourcePaths, VIEWSET_ROUTES, type ResourcePaths, type ViewSetTarget } from './viewset-routes.js';
import type { ViewSetEntry, ViewSetGuard } from './viewset.options.js';

/** Per-module settings the generated controllers and the body gate read at run time. */
export interface ViewSetRuntime {
  readonly bodyLimitBytes: number;
  readonly paths: readonly ResourcePaths[];
}

/** Module-scoped token of the {@link ViewSetRuntime}; each registration provides its own value. */
export const VIEWSET_RUNTIME: unique symbol = Symbol('VIEWSET_RUNTIME');

type Request = IncomingMessage & { params?: Record<string, string>; [TESSERA_EXCHANGE]?: Exchange };
type Handler = (this: GeneratedController, req: Request, res: ServerResponse, id?: string) => Promise<void>;

/** What every generated controller instance holds. */
interface GeneratedController {
  readonly binding: ViewSetBinding;
}

/**
 * Builds the `@Controller(prefix)` class of one entry (web-and-viewset §7.7): the six handlers of
 * §7.4 (Express answers HEAD from GET), then `@All()` fallbacks on both paths answering 405 with the
 * `Allow` of §7.5. Handlers take `@Req()`/`@Res()` and answer through an exchange over them, so
 * the answers are byte-for-byte those of `resource()`; guards, interceptors, pipes and filters
 * bound to the class, globally or through `decorators` apply as to a hand-written controller.
 */
export function createViewSetController(entry: ViewSetEntry, decorators: readonly ClassDecorator[]): Type<unknown> {
  const paths = resourcePaths(entry.prefix);
  // Same grammar and errors as resource(): the prefix must be a valid router path.
  new Router().get(paths.collection, noop).get(paths.item, noop);
  const serializer = entry.serializer as Serializer<unknown>;

  class ViewSetController implements GeneratedController {
    readonly binding: ViewSetBinding;
    constructor(viewSet: ViewSet<unknown>, runtime: ViewSetRuntime) {
      this.binding = { viewSet, serializer, bodyLimitBytes: runtime.bodyLimitBytes };
    }
  }
  Object.defineProperty(ViewSetController, 'name', { value: `${entry.viewSet.name}Controller` });
  Inject(entry.viewSet)(ViewSetController, undefined, 0);
  Inject(VIEWSET_RUNTIME)(ViewSetController, undefined, 1);

  for (const route of VIEWSET_ROUTES) {
    const item = route.target === 'item';
    define(
      ViewSetController,
      route.operation,
      item,
      RequestMapping({ path: item ? ':id' : '/', method: RequestMethod[route.method] }),
      function (req, res, id) {
        return runViewSetRoute(exchangeFor(req, res), this.binding, route, id);
      },
    );
  }
  for (const target of ['collection', 'item'] as const satisfies readonly ViewSetTarget[]) {
    const item = target === 'item';
    define(ViewSetController, `${target}MethodNotAllowed`, item, All(item ? ':id' : '/'), async function (req, res) {
      answerUnmapped(exchangeFor(req, res), this.binding.viewSet, target);
    });
  }

  Controller(paths.collection)(ViewSetController);
  for (const guard of entry.guards ?? []) applyGuard(ViewSetController, guard);
  if (entry.interceptors !== undefined && entry.interceptors.length > 0)
    UseInterceptors(...entry.interceptors)(ViewSetController);
  for (const decorate of [...decorators, ...(entry.decorators ?? [])]) decorate(ViewSetController);
  const proto = ViewSetController.prototype as object;
  for (const [operation, methodDecorators] of Object.entries(entry.actionDecorators ?? {})) {
    if (!VIEWSET_ROUTES.some((route) => route.operation === operation))
      throw new TypeError(`actionDecorators: unknown ViewSet operation "${operation}"`);
    for (const decorate of methodDecorators ?? [])
      decorate(proto, operation, Object.getOwnPropertyDescriptor(proto, operation)!);
  }
  return ViewSetController;
}

/** Applies more class decorators to a generated controller (forRoot options reaching forFeature). */
export function decorateController(controller: Type<unknown>, decorators: readonly ClassDecorator[]): void {
  for (const decorate of decorators) decorate(controller);
}

function define(
  target: Type<GeneratedController>,
  name: string,
  item: boolean,
  mapping: MethodDecorator,
  handler: Handler,
): void {
  const proto = target.prototype as object;
  Object.defineProperty(proto, name, { value: handler, writable: true, configurable: true, enumerable: false });
  Req()(proto, name, 0);
  Res()(proto, name, 1);
  if (item) Param('id')(proto, name, 2);
  // Parameter types as a compiler would emit them: a global ValidationPipe then skips them quietly.
  Reflect.defineMetadata('design:paramtypes', item ? [Object, Object, String] : [Object, Object], proto, name);
  mapping(proto, name, Object.getOwnPropertyDescriptor(proto, name)!);
}

/**
 * The exchange of the request: the one `RouterModule` stored when it is mounted (it carries the
 * pipeline's attributes: identity context, request id), else a new one. Path parameters come
 * from Express, already decoded, so a prefix parameter reads the same as under `resource()`.
 */
function exchangeFor(req: Request, res: ServerResponse): Exchange {
  const exchange = (req[TESSERA_EXCHANGE] ??= new Exchange(req, res));
  exchange.setPathParams({ ...(req.params ?? {}) });
  return exchange;
}

function applyGuard(controller: Type<unknown>, guard: ViewSetGuard): void {
  const isGuardClass =
    typeof guard === 'function' &&
    typeof (guard.prototype as Partial<CanActivate> | undefined)?.canActivate === 'function';
  if (typeof guard === 'function' && !isGuardClass) (guard as ClassDecorator)(controller);
  else UseGuards(guard as Type<CanActivate> | CanActivate)(controller);
}

function noop(): void {}
