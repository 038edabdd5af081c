import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { CoreModuleOptions } from './core.options.js';

/**
 * Injection token of the raw {@link CoreModuleOptions}.
 *
 * @example
 * constructor(@Inject(CORE_MODULE_OPTIONS) private readonly options: CoreModuleOptions) {}
 */
export const CORE_MODULE_OPTIONS: unique symbol = Symbol('CORE_MODULE_OPTIONS');

/**
 * `forRoot`/`forRootAsync` for `CoreModule`; global unless `isGlobal: false`.
 *
 * @example
 * export class CoreModule extends CoreConfigurableModuleClass {}
 */
export const { ConfigurableModuleClass: CoreConfigurableModuleClass } =
  new ConfigurableModuleBuilder<CoreModuleOptions>({ moduleName: 'Core', optionsInjectionToken: CORE_MODULE_OPTIONS })
    .setClassMethodName('forRoot')
    .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
    .build();
