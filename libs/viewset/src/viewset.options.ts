import type { CanActivate, ModuleMetadata, NestInterceptor, Type } from '@nestjs/common';
import type { Serializer } from './serializer.js';
import type { ViewSet, ViewSetOperation } from './viewset.js';

/**
 * Token of the `ViewSetModule.forRoot(...)` options, read by every `forFeature` registration.
 *
 * @example
 * constructor(@Optional() @Inject(VIEWSET_MODULE_OPTIONS) options?: ViewSetModuleOptions) {}
 */
export const VIEWSET_MODULE_OPTIONS: unique symbol = Symbol('VIEWSET_MODULE_OPTIONS');

/**
 * A guard class or instance, or a decorator that applies guards (`@RequireCapability('audit.read')`).
 *
 * @example
 * const guards: ViewSetGuard[] = [SessionGuard, RequireCapability('todos.write')];
 */
export type ViewSetGuard = Type<CanActivate> | CanActivate | ClassDecorator;

/**
 * One resource served by a generated controller (web-and-viewset §7.7).
 *
 * @example
 * const todos: ViewSetEntry<Todo> = { prefix: '/todos', viewSet: TodoViewSet, serializer: todoSerializer, guards: [SessionGuard] };
 */
export interface ViewSetEntry<T = any> {
  /** Path of the collection; must start with `/`; one trailing `/` is stripped; no `:id`. */
  prefix: string;
  /** The ViewSet class, registered as a provider of the module (constructor injection works). */
  viewSet: Type<ViewSet<T>>;
  serializer: Serializer<T>;
  /** Applied to the generated controller as `@UseGuards(...)`; decorators are applied as they are. */
  guards?: ViewSetGuard[];
  /** Applied to the generated controller as `@UseInterceptors(...)`. */
  interceptors?: (Type<NestInterceptor> | NestInterceptor)[];
  /** Extra class decorators for this entry's controller only. */
  decorators?: ClassDecorator[];
  /**
   * Method decorators for single operations of this entry's controller, applied after the class
   * ones (e.g. `{ create: [RequireCapability('package.publish')] }`: only `POST` needs it).
   */
  actionDecorators?: Partial<Record<ViewSetOperation, MethodDecorator[]>>;
}

/**
 * Options of `ViewSetModule.register` / `forRoot`.
 *
 * @example
 * ViewSetModule.forRoot({ decorators: [UseFilters(AuditFilter)], bodyLimitBytes: 64 * 1024 });
 */
export interface ViewSetModuleOptions {
  /** Class decorators applied to every generated controller (guards, filters, metadata). */
  decorators?: ClassDecorator[];
  /** Body limit of `create`/`update`/`partialUpdate` (over it: 400 Payload Too Large). @default 1048576 */
  bodyLimitBytes?: number;
  /** Modules whose providers the ViewSets inject. */
  imports?: ModuleMetadata['imports'];
}

/**
 * A configuration mistake found while the module is built or bootstrapped (bad `bodyLimitBytes`,
 * `forFeature` controllers built with another application's `forRoot` options).
 *
 * @example
 * await expect(app.init()).rejects.toThrow(ViewSetConfigError);
 */
export class ViewSetConfigError extends Error {
  override name = 'ViewSetConfigError';
}
