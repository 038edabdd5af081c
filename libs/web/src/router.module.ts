import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { nextFeatureName, registrationProviders } from './router-registration.js';
import { ManagementListener } from './management-listener.js';
import { RouterHost } from './router-host.js';
import {
  ROUTER_MODULE_CONFIG,
  type RouterFeatureConfig,
  type RouterModuleAsyncConfig,
  type RouterModuleConfig,
} from './router.options.js';

/** Hosts feature registrations; each `forFeature` call is its own dynamic module. */
@Module({})
class RouterFeatureModule {}

/**
 * The Nest bridge (web-and-viewset §6): merges every registered router into one route table at
 * bootstrap and serves it ahead of Nest's own routing; unmatched requests fall through to Nest.
 *
 * @example
 * RouterModule.forRoot({
 *   routers: [{ useFactory: (greeter: Greeter) => new Router().get('/hello/:name', (ex) =>
 *     ex.respond({ body: greeter.greet(ex.pathParam('name')!) })), inject: [Greeter] }],
 *   imports: [GreeterModule],
 * })
 */
@Module({})
export class RouterModule {
  /** Registers routers, pre-route middleware and options once in the root module. */
  static forRoot(config: RouterModuleConfig = {}): DynamicModule {
    const { routers = [], imports = [], ...rest } = config;
    return {
      module: RouterModule,
      global: true,
      imports: [DiscoveryModule, ...imports],
      providers: [
        { provide: ROUTER_MODULE_CONFIG, useValue: rest },
        ...registrationProviders('RouterModule.forRoot', routers),
        ManagementListener,
        RouterHost,
      ],
      exports: [RouterHost, ManagementListener],
    };
  }

  /** Like {@link forRoot}, with the configuration built by a factory. */
  static forRootAsync(config: RouterModuleAsyncConfig): DynamicModule {
    return {
      module: RouterModule,
      global: true,
      imports: [DiscoveryModule, ...(config.imports ?? [])],
      providers: [
        { provide: ROUTER_MODULE_CONFIG, useFactory: config.useFactory, inject: config.inject ?? [] },
        ManagementListener,
        RouterHost,
      ],
      exports: [RouterHost, ManagementListener],
    };
  }

  /** Adds routers from a feature module; they are merged with every other registration. */
  static forFeature(config: RouterFeatureConfig): DynamicModule {
    const name = config.name ?? nextFeatureName();
    return {
      module: RouterFeatureModule,
      imports: config.imports ?? [],
      providers: registrationProviders(name, config.routers, config.listener),
    };
  }
}
