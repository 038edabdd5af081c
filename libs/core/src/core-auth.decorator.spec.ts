import { describe, expect, it } from '@jest/globals';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import {
  CurrentCorePrincipal,
  RequireCoreAuthentication,
  RequireCorePermission,
  RequireCoreRole,
} from './core-auth.decorator.js';
import { CoreAuthGuard } from './core-auth.guard.js';
import { CORE_PERMISSIONS_METADATA, CORE_ROLES_METADATA } from './core-auth.metadata.js';
import { CoreConfigError } from './core.errors.js';

describe('core auth decorators', () => {
  it('store frozen requirement lists under Symbol keys and apply CoreAuthGuard', () => {
    @RequireCoreRole('operator', 'admin')
    class OpsController {
      @RequireCorePermission('cache.flush', 'metrics.read', 'cache.flush')
      flush(): void {}

      @RequireCoreAuthentication()
      whoami(): void {}
    }
    expect(Reflect.getMetadata(CORE_ROLES_METADATA, OpsController)).toEqual(['operator', 'admin']);
    expect(Reflect.getMetadata(GUARDS_METADATA, OpsController)).toEqual([CoreAuthGuard]);
    const flush = Object.getOwnPropertyDescriptor(OpsController.prototype, 'flush')!.value as object;
    expect(Reflect.getMetadata(CORE_PERMISSIONS_METADATA, flush)).toEqual(['cache.flush', 'metrics.read']);
    expect(Object.isFrozen(Reflect.getMetadata(CORE_PERMISSIONS_METADATA, flush))).toBe(true);
    expect(Reflect.getMetadata(GUARDS_METADATA, flush)).toEqual([CoreAuthGuard]);
    const whoami = Object.getOwnPropertyDescriptor(OpsController.prototype, 'whoami')!.value as object;
    expect(Reflect.getMetadata(GUARDS_METADATA, whoami)).toEqual([CoreAuthGuard]);
    expect(Reflect.getMetadata(CORE_PERMISSIONS_METADATA, whoami)).toBeUndefined();
  });

  it('refuse, when applied, an empty list that would protect nothing beyond authentication', () => {
    expect(() => RequireCorePermission()).toThrow(CoreConfigError);
    expect(() => RequireCoreRole()).toThrow('At least one role is required');
  });

  it('refuse, when applied, malformed names', () => {
    expect(() => RequireCorePermission('metrics.*')).toThrow(CoreConfigError);
    expect(() => RequireCoreRole('admin', ' ops')).toThrow(CoreConfigError);
    expect(() => RequireCorePermission(undefined as unknown as string)).toThrow(CoreConfigError);
  });

  it('refuse, when applied, an unknown principal field', () => {
    expect(() => CurrentCorePrincipal('password' as never)).toThrow(CoreConfigError);
    expect(typeof CurrentCorePrincipal('id')).toBe('function');
  });
});
