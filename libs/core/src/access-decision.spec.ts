import { describe, expect, it } from '@jest/globals';
import { coreAccessNames, coreAccessRequirement, decideAccess } from './access-decision.js';
import { CoreConfigError } from './core.errors.js';
import { createCorePrincipal, type CorePrincipal } from './principal.js';

const reader: CorePrincipal = createCorePrincipal({
  kind: 'api_key',
  id: 'grafana',
  roles: ['viewer'],
  permissions: ['metrics.read'],
});
const operator: CorePrincipal = createCorePrincipal({
  kind: 'basic',
  id: 'ops',
  roles: ['operator'],
  permissions: ['metrics.read', 'cache.flush'],
});

describe('decideAccess', () => {
  it('answers unauthenticated without a principal, whatever the requirement', () => {
    expect(decideAccess(null)).toBe('unauthenticated');
    expect(decideAccess(undefined, {})).toBe('unauthenticated');
    expect(decideAccess(null, { permissions: ['metrics.read'], roles: ['viewer'] })).toBe('unauthenticated');
  });

  it('allows any principal when nothing beyond authentication is required', () => {
    expect(decideAccess(reader)).toBe('allow');
    expect(decideAccess(createCorePrincipal({ kind: 'api_key', id: 'bare' }), {})).toBe('allow');
  });

  it('requires every listed permission', () => {
    expect(decideAccess(reader, { permissions: ['metrics.read'] })).toBe('allow');
    expect(decideAccess(operator, { permissions: ['metrics.read', 'cache.flush'] })).toBe('allow');
    expect(decideAccess(reader, { permissions: ['metrics.read', 'cache.flush'] })).toBe('forbidden');
  });

  it('requires at least one of the listed roles', () => {
    expect(decideAccess(operator, { roles: ['admin', 'operator'] })).toBe('allow');
    expect(decideAccess(reader, { roles: ['admin', 'operator'] })).toBe('forbidden');
  });

  it('requires both the permissions and a role when both are listed', () => {
    expect(decideAccess(operator, { permissions: ['cache.flush'], roles: ['operator'] })).toBe('allow');
    expect(decideAccess(operator, { permissions: ['cache.flush'], roles: ['admin'] })).toBe('forbidden');
    expect(decideAccess(reader, { permissions: ['cache.flush'], roles: ['viewer'] })).toBe('forbidden');
  });

  it('matches names exactly: no prefix, case folding or wildcard grants', () => {
    const lookalike = createCorePrincipal({
      kind: 'api_key',
      id: 'x',
      roles: ['Operator'],
      permissions: ['metrics', 'metrics.read.all'],
    });
    expect(decideAccess(lookalike, { permissions: ['metrics.read'] })).toBe('forbidden');
    expect(decideAccess(lookalike, { roles: ['operator'] })).toBe('forbidden');
  });
});

describe('coreAccessNames', () => {
  it('refuses an empty list, which would silently require nothing', () => {
    expect(() => coreAccessNames('permission', [])).toThrow(CoreConfigError);
    expect(() => coreAccessNames('role', [])).toThrow('At least one role is required');
  });

  it.each([[''], [' metrics.read'], ['metrics read'], ['metrics.*'], ['*'], [42], [null], ['x'.repeat(129)]])(
    'refuses the malformed name %p',
    (name) => {
      expect(() => coreAccessNames('permission', [name])).toThrow(CoreConfigError);
    },
  );

  it('returns a frozen, de-duplicated copy', () => {
    const names = coreAccessNames('permission', ['a.read', 'b:write', 'a.read']);
    expect(names).toEqual(['a.read', 'b:write']);
    expect(Object.isFrozen(names)).toBe(true);
  });

  it('validates whole requirements and keeps {} as "authenticated only"', () => {
    expect(coreAccessRequirement({})).toEqual({});
    expect(coreAccessRequirement({ roles: ['admin'] })).toEqual({ roles: ['admin'] });
    expect(() => coreAccessRequirement({ permissions: [] })).toThrow(CoreConfigError);
  });
});
