import { Module } from '@nestjs/common';
import { CoreAuthenticationProvider } from './authentication-provider.js';
import { CoreAuthGuard } from './core-auth.guard.js';
import { CORE_MODULE_OPTIONS, CoreConfigurableModuleClass } from './core.module-definition.js';
import { validateCoreModuleOptions, type CoreModuleOptions } from './core.options.js';

/**
 * Provides the {@link CoreAuthenticationProvider} port (validated at boot) and
 * {@link CoreAuthGuard} to the application; global by default so `@RequireCorePermission` works in
 * every module. `forRootAsync` builds the options from injected providers.
 *
 * @example
 * CoreModule.forRoot({ provider: new ApiKeyAuthenticationProvider({ keys }) })
 * CoreModule.forRootAsync({ inject: [KeyRepository], useFactory: (repo: KeyRepository) =>
 *   ({ provider: new ApiKeyAuthenticationProvider({ resolve: (digest) => repo.principalFor(digest) }) }) })
 */
@Module({
  providers: [
    {
      provide: CoreAuthenticationProvider,
      useFactory: (options: CoreModuleOptions) => validateCoreModuleOptions(options).provider,
      inject: [CORE_MODULE_OPTIONS],
    },
    CoreAuthGuard,
  ],
  exports: [CoreAuthenticationProvider, CoreAuthGuard],
})
export class CoreModule extends CoreConfigurableModuleClass {}
