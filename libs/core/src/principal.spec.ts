import { describe, expect, it } from '@jest/globals';
import { createTestExchange } from '@tessera/web';
import { CoreConfigError } from './core.errors.js';
import {
  CORE_PRINCIPAL_ATTRIBUTE,
  createCorePrincipal,
  getCorePrincipal,
  type CorePrincipalInit,
} from './principal.js';

describe('createCorePrincipal', () => {
  it('fills absent roles and permissions with none and freezes everything', () => {
    const principal = createCorePrincipal({
      kind: 'api_key',
      id: 'grafana',
      permissions: ['metrics.read', 'metrics.read'],
    });
    expect(principal).toEqual({ kind: 'api_key', id: 'grafana', roles: [], permissions: ['metrics.read'] });
    expect(Object.isFrozen(principal)).toBe(true);
    expect(Object.isFrozen(principal.permissions)).toBe(true);
    expect(() => (principal.permissions as string[]).push('admin')).toThrow(TypeError);
  });

  it('keeps flat JSON attributes', () => {
    const principal = createCorePrincipal({
      kind: 'basic',
      id: 'u',
      attributes: { label: 'ci', uses: 3, rotated: false },
    });
    expect(principal.attributes).toEqual({ label: 'ci', uses: 3, rotated: false });
  });

  it.each<[string, CorePrincipalInit]>([
    ['an upper-case kind', { kind: 'ApiKey', id: 'x' }],
    ['an empty id', { kind: 'api_key', id: '' }],
    ['an id with a control character', { kind: 'api_key', id: 'a\nb' }],
    ['an id longer than 255 characters', { kind: 'api_key', id: 'x'.repeat(256) }],
    ['a wildcard permission', { kind: 'api_key', id: 'x', permissions: ['*'] }],
    ['roles that are not an array', { kind: 'api_key', id: 'x', roles: 'admin' as unknown as string[] }],
    ['a nested attribute', { kind: 'api_key', id: 'x', attributes: { nested: {} as unknown as string } }],
    ['a non-finite attribute', { kind: 'api_key', id: 'x', attributes: { n: Number.NaN } }],
  ])('rejects %s with CoreConfigError', (_label, init) => {
    expect(() => createCorePrincipal(init)).toThrow(CoreConfigError);
  });
});

describe('getCorePrincipal', () => {
  it('reads the principal stored under CORE_PRINCIPAL_ATTRIBUTE', () => {
    const { exchange } = createTestExchange();
    expect(getCorePrincipal(exchange)).toBeUndefined();
    const principal = createCorePrincipal({ kind: 'api_key', id: 'k' });
    exchange.attributes.set(CORE_PRINCIPAL_ATTRIBUTE, principal);
    expect(getCorePrincipal(exchange)).toBe(principal);
  });
});
