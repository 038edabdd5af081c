import { afterEach, describe, expect, it } from '@jest/globals';
import type { RouteHandler } from '../pipeline.js';
import { Router } from './router.js';

/** A handler that names its route when called directly (the tests only look routes up). */
const handler = (name: string) => (() => name) as unknown as RouteHandler;
const routeOf = (router: Router, method: string, path: string) =>
  (router.lookup(method, path)?.handler as unknown as (() => string) | undefined)?.() ?? null;

declare global {
  var tesseraPwned: unknown;
}

describe('compiled matcher: route strings never reach the generated code as code (issue 16)', () => {
  afterEach(() => {
    delete globalThis.tesseraPwned;
  });

  // Each label is a static segment of two routes; the compiled and the interpreted router must both
  // match it as written and percent-encoded, capture the parameter after it, and run nothing.
  const cases: [title: string, label: string, encoded: string][] = [
    [
      'double quotes that would close a string literal',
      '"+(globalThis.tesseraPwned=1)+"',
      '%22+(globalThis.tesseraPwned=1)+%22',
    ],
    ['single quotes and a backtick', "'+(globalThis.tesseraPwned=2)+'`", "'+(globalThis.tesseraPwned=2)+'%60"],
    [
      'backslashes that would escape the closing quote',
      'a\\\\"+(globalThis.tesseraPwned=3)+"',
      'a%5C%5C%22+(globalThis.tesseraPwned=3)+%22',
    ],
    ['a template substitution', '${globalThis.tesseraPwned=4}', '$%7BglobalThis.tesseraPwned=4%7D'],
    ['U+2028 and U+2029 line separators', 'a\u2028b\u2029c', 'a%E2%80%A8b%E2%80%A9c'],
    ['non-ASCII letters and an emoji', 'café-😀', 'caf%C3%A9-%F0%9F%98%80'],
    ['closing braces and a statement', '}});globalThis.tesseraPwned=5;({', '%7D%7D);globalThis.tesseraPwned=5;(%7B'],
  ];

  for (const [title, label, encoded] of cases) {
    it(`compiles ${title} safely and matches them`, () => {
      const register = (router: Router) => {
        router.get(`/x/${label}`, handler('static'));
        router.get(`/x/${label}/:id`, handler('param'));
        router.get('/x/:other', handler('fallback'));
      };
      for (const compile of [true, false]) {
        const router = new Router({ compile });
        register(router);
        router.compile();
        expect(routeOf(router, 'GET', `/x/${label}`)).toBe('static');
        expect(routeOf(router, 'GET', `/x/${encoded}`)).toBe('static');
        expect(router.lookup('GET', `/x/${label}/7`)?.params).toEqual({ id: '7' });
        expect(router.lookup('GET', `/x/${encoded}/8`)?.params).toEqual({ id: '8' });
        expect(routeOf(router, 'GET', '/x/other')).toBe('fallback');
        expect(globalThis.tesseraPwned).toBeUndefined();
      }
    });
  }

  it('keeps parameter names such as __proto__ and constructor as own properties', () => {
    const router = new Router().get('/a/:__proto__/:constructor', handler('p'));
    const params = router.lookup('GET', '/a/x/y')!.params;
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(Object.hasOwn(params, '__proto__')).toBe(true);
    expect({ ...params }).toEqual({ ['__proto__']: 'x', constructor: 'y' });
  });
});

describe('compiled matcher: generation and invalidation', () => {
  it('is the default, compiles on the first lookup, and again after a registration change', () => {
    const router = new Router();
    expect(router.compiles).toBe(true);
    router.get('/a/:id', handler('a'));
    expect(routeOf(router, 'GET', '/a/1')).toBe('a');
    router.get('/a/:id/b', handler('b'));
    router.get('/a/static', handler('static'));
    expect(routeOf(router, 'GET', '/a/1/b')).toBe('b');
    expect(routeOf(router, 'GET', '/a/static')).toBe('static');
    router.compile();
    router.post('/a/:id', handler('post'));
    expect(routeOf(router, 'POST', '/a/1')).toBe('post');
    expect(router.allowedMethods('/a/1')).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('answers like the interpreted tree on a large table (subtrees split into functions of their own)', () => {
    // 4 top-level resources × 80 second-level names, each with nested parameters and wildcards.
    const routes: string[] = [];
    for (const top of ['repos', 'users', 'orgs', 'gists'])
      for (let i = 0; i < 80; i++) {
        routes.push(`/${top}/:owner/name${i}`, `/${top}/:owner/name${i}/:id`, `/${top}/:owner/name${i}/:id/deep/*`);
        if (i % 7 === 0) routes.push(`/${top}/static${i}`, `/${top}/static${i}/*`);
      }
    const compiled = new Router();
    const interpreted = new Router({ compile: false });
    routes.forEach((path, i) => {
      compiled.get(path, handler(String(i)));
      interpreted.get(path, handler(String(i)));
    });
    compiled.compile();
    const samples = ['/', '/repos', '/repos/o', '/repos/o/name3', '/repos/o/name3/', '/users/o/name79/42'];
    for (const top of ['repos', 'users', 'orgs', 'gists', 'nope'])
      for (let i = 0; i < 90; i += 3)
        samples.push(
          `/${top}/o${i}/name${i}/${i}`,
          `/${top}/o/name${i}/${i}/deep`,
          `/${top}/o/name${i}/${i}/deep/a/b%20c`,
          `/${top}/static${i}`,
          `/${top}/static${i}/x/y`,
          `/${top}/o/name${i}/${i}/other`,
          `/${top}//name${i}`,
        );
    for (const path of samples) {
      const a = compiled.lookup('GET', path);
      const b = interpreted.lookup('GET', path);
      expect([path, routeOf(compiled, 'GET', path), a === null ? null : { ...a.params }]).toEqual([
        path,
        routeOf(interpreted, 'GET', path),
        b === null ? null : { ...b.params },
      ]);
    }
  });

  it('builds params without code generation when compile is false', () => {
    const router = new Router({ compile: false }).get('/a/:x/*', handler('w'));
    const params = router.lookup('GET', '/a/1/rest/of/it')!.params;
    expect({ ...params }).toEqual({ x: '1', '*': 'rest/of/it' });
    expect(router.compiles).toBe(false);
  });
});
