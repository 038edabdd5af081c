import { Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { DEFAULT_BODY_LIMIT_BYTES } from '@tessera/web';
import {
  createViewSetController,
  decorateController,
  VIEWSET_RUNTIME,
  type ViewSetRuntime,
} from './controller.factory.js';
import { ViewSetBodyGate } from './viewset-body.gate.js';
import { resourcePaths } from './viewset-routes.js';
import {
  VIEWSET_MODULE_OPTIONS,
  ViewSetConfigError,
  type ViewSetEntry,
  type ViewSetModuleOptions,
} from './viewset.options.js';

/** Hosts `forRoot` options; global so every `forFeature` registration can read them. */
@Module({})
class ViewSetRootModule {}

/**
 * Class decorators must be on a controller before Nest scans it (a guard added later is never
 * instantiated), so `forRoot` options reach `forFeature` controllers statically: through the
 * latest `forRoot` call, or the next one when `forFeature` ran first. A provider checks at
 * bootstrap that they are the options this application's `forRoot` provides.
 */
let rootOptions: ViewSetModuleOptions | undefined;
const awaitingRoot = new Set<Type<unknown>>();
const appliedRoot = new WeakMap<Type<unknown>, ViewSetModuleOptions>();
let sequence = 0;

/**
 * Serves ViewSets through generated Nest controllers (web-and-viewset §7.7): one real
 * `@Controller(prefix)` per entry, answering exactly as `resource()` does, with guards,
 * interceptors, pipes and filters applying as to hand-written controllers. Each ViewSet class
 * is a provider of the module.
 *
 * @example
 * @Module({
 *   imports: [
 *     ViewSetModule.register(
 *       [{ prefix: '/todos', viewSet: TodoViewSet, serializer: todoSerializer, guards: [SessionGuard] }],
 *       { imports: [TodoStoreModule] },
 *     ),
 *   ],
 * })
 * export class AppModule {}
 */
@Module({})
export class ViewSetModule {
  /** Registers entries with their own options (`forRoot` options are not applied). */
  static register(entries: ViewSetEntry[], options: ViewSetModuleOptions = {}): DynamicModule {
    const controllers = entries.map((entry) => createViewSetController(entry, options.decorators ?? []));
    const runtime = runtimeOf(entries, options);
    return build(entries, controllers, options.imports ?? [], { provide: VIEWSET_RUNTIME, useValue: runtime });
  }

  /** Options every `forFeature` registration uses: decorators and body limit. Call once per application. */
  static forRoot(options: ViewSetModuleOptions = {}): DynamicModule {
    rootOptions = options;
    for (const controller of awaitingRoot) {
      decorateController(controller, options.decorators ?? []);
      appliedRoot.set(controller, options);
    }
    awaitingRoot.clear();
    return {
      module: ViewSetRootModule,
      global: true,
      providers: [{ provide: VIEWSET_MODULE_OPTIONS, useValue: options }],
      exports: [VIEWSET_MODULE_OPTIONS],
    };
  }

  /** Registers entries in a feature module, with the options of `forRoot` when present. */
  static forFeature(entries: ViewSetEntry[], feature: Pick<ViewSetModuleOptions, 'imports'> = {}): DynamicModule {
    const root = rootOptions;
    const controllers = entries.map((entry) => createViewSetController(entry, root?.decorators ?? []));
    for (const controller of controllers) {
      if (root === undefined) awaitingRoot.add(controller);
      else appliedRoot.set(controller, root);
    }
    return build(entries, controllers, feature.imports ?? [], {
      provide: VIEWSET_RUNTIME,
      inject: [{ token: VIEWSET_MODULE_OPTIONS, optional: true }],
      useFactory: (provided: ViewSetModuleOptions | undefined): ViewSetRuntime => {
        for (const controller of controllers) {
          if (appliedRoot.get(controller) !== provided) {
            throw new ViewSetConfigError(
              `ViewSetModule.forFeature(${describe(entries)}) was built with the options of another ViewSetModule.forRoot() call ` +
                'than the one this application imports. Call ViewSetModule.forRoot() once per application, or use ViewSetModule.register(entries, options).',
            );
          }
        }
        return runtimeOf(entries, provided ?? {});
      },
    });
  }
}

function build(
  entries: ViewSetEntry[],
  controllers: Type<unknown>[],
  imports: NonNullable<ViewSetModuleOptions['imports']>,
  runtime: Provider,
): DynamicModule {
  const viewSets = [...new Set(entries.map((entry) => entry.viewSet))];
  return {
    module: ViewSetModule,
    imports,
    controllers,
    // The numbered token keeps two look-alike registrations from being merged into one module.
    providers: [
      ...viewSets,
      runtime,
      ViewSetBodyGate,
      { provide: `ViewSetModule#${++sequence}`, useValue: describe(entries) },
    ],
  };
}

function runtimeOf(entries: ViewSetEntry[], options: ViewSetModuleOptions): ViewSetRuntime {
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  if (!Number.isSafeInteger(bodyLimitBytes) || bodyLimitBytes < 0) {
    throw new ViewSetConfigError(
      `ViewSetModule bodyLimitBytes must be a non-negative integer, got ${String(bodyLimitBytes)}`,
    );
  }
  return { bodyLimitBytes, paths: entries.map((entry) => resourcePaths(entry.prefix)) };
}

function describe(entries: ViewSetEntry[]): string {
  return entries.map((entry) => entry.prefix).join(', ');
}
