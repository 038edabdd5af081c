import { applyDecorators, createParamDecorator, SetMetadata, UseGuards, type ExecutionContext } from '@nestjs/common';
import { TESSERA_EXCHANGE, type Exchange } from '@tessera/web';
import { coreAccessNames } from './access-decision.js';
import { CoreAuthGuard } from './core-auth.guard.js';
import { CORE_PERMISSIONS_METADATA, CORE_ROLES_METADATA } from './core-auth.metadata.js';
import { CoreConfigError } from './core.errors.js';
import { getCorePrincipal, type CorePrincipal } from './principal.js';

/**
 * Requires **every** listed permission: applies {@link CoreAuthGuard} and its metadata (a
 * handler's list replaces the class's). Throws {@link CoreConfigError} when applied with no or
 * malformed names.
 *
 * @example
 * @Get('metrics')
 * @RequireCorePermission('metrics.read')
 * metrics() {}
 */
export function RequireCorePermission(...permissions: string[]): ClassDecorator & MethodDecorator {
  const names = coreAccessNames('permission', permissions);
  return applyDecorators(SetMetadata(CORE_PERMISSIONS_METADATA, names), UseGuards(CoreAuthGuard));
}

/**
 * Requires **at least one** of the listed roles: applies {@link CoreAuthGuard} and its metadata
 * (a handler's list replaces the class's). Throws {@link CoreConfigError} when applied with no or
 * malformed names.
 *
 * @example
 * @Controller('ops')
 * @RequireCoreRole('operator', 'admin')
 * export class OpsController {}
 */
export function RequireCoreRole(...roles: string[]): ClassDecorator & MethodDecorator {
  const names = coreAccessNames('role', roles);
  return applyDecorators(SetMetadata(CORE_ROLES_METADATA, names), UseGuards(CoreAuthGuard));
}

/**
 * Requires an authenticated core principal and nothing else.
 *
 * @example
 * @Get('whoami')
 * @RequireCoreAuthentication()
 * whoami(@CurrentCorePrincipal() principal: CorePrincipal) { return principal; }
 */
export function RequireCoreAuthentication(): ClassDecorator & MethodDecorator {
  return applyDecorators(UseGuards(CoreAuthGuard));
}

const FIELDS = new Set<keyof CorePrincipal>(['kind', 'id', 'roles', 'permissions', 'attributes']);

const principalParam = createParamDecorator((field: keyof CorePrincipal | undefined, context: ExecutionContext) => {
  const req = context.switchToHttp().getRequest<{ [TESSERA_EXCHANGE]?: Exchange }>();
  const exchange = req[TESSERA_EXCHANGE];
  const principal = exchange === undefined ? undefined : getCorePrincipal(exchange);
  if (principal === undefined) {
    throw new CoreConfigError(
      'principal_unavailable',
      '@CurrentCorePrincipal() needs CoreAuthGuard on the handler: add @RequireCorePermission, @RequireCoreRole or @RequireCoreAuthentication',
    );
  }
  return field === undefined ? principal : principal[field];
});

/**
 * Parameter decorator: the principal {@link CoreAuthGuard} authenticated, or one of its fields.
 * Throws {@link CoreConfigError} when applied with an unknown field, and fails the request (500)
 * on a handler without the guard rather than passing `undefined`.
 *
 * @example
 * @Get('whoami')
 * @RequireCoreAuthentication()
 * whoami(@CurrentCorePrincipal() principal: CorePrincipal, @CurrentCorePrincipal('id') id: string) {}
 */
export function CurrentCorePrincipal(field?: keyof CorePrincipal): ParameterDecorator {
  if (field !== undefined && !FIELDS.has(field)) {
    throw new CoreConfigError(
      'invalid_requirement',
      `@CurrentCorePrincipal(${JSON.stringify(field)}): field must be one of ${[...FIELDS].join(', ')}`,
    );
  }
  return principalParam(field);
}
