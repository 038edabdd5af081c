import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { Router } from './router.js';

/**
 * The router agrees with a brute-force reference matcher written from the spec (§4.1): every
 * route that matches a path is ranked by its segment kinds, position by position
 * (static < param < wildcard; a route ending exactly where the path ends beats a wildcard there).
 */

type Kind = 'static' | 'param' | 'wildcard' | 'trailing';
interface RefSegment {
  kind: Kind;
  text: string;
}
interface RefRoute {
  pattern: string;
  segments: RefSegment[];
  id: number;
}

function splitPath(path: string, strict: boolean): string[] {
  let p = path;
  const lead = p.startsWith('/') ? 1 : 0;
  if (!strict && p.length > lead && p.endsWith('/')) p = p.slice(0, -1);
  if (lead) p = p.slice(1);
  return p === '' ? [] : p.split('/');
}

function parsePattern(pattern: string, strict: boolean): RefSegment[] {
  let body = pattern.startsWith('/') ? pattern.slice(1) : pattern;
  let trailing = false;
  if (body.endsWith('/')) {
    body = body.slice(0, -1);
    trailing = strict;
  }
  const segments: RefSegment[] = (body === '' ? [] : body.split('/')).map((text) =>
    text === '*'
      ? { kind: 'wildcard', text }
      : text.startsWith(':')
        ? { kind: 'param', text: text.slice(1) }
        : { kind: 'static', text },
  );
  if (trailing) segments.push({ kind: 'trailing', text: '' });
  return segments;
}

const RANK: Record<Kind, number> = { static: 0, trailing: 0, param: 1, wildcard: 2 };

/** RFC 3986 `pchar` characters stay; every other character is percent-encoded as UTF-8. */
function encodedLabel(text: string): string {
  return [...text].map((c) => (/^[A-Za-z0-9\-._~!$&'()+,;=:@]$/.test(c) ? c : encodeURIComponent(c))).join('');
}

function referenceMatch(routes: RefRoute[], path: string, strict: boolean) {
  const segs = splitPath(path, strict);
  let best: { route: RefRoute; key: number[]; params: Record<string, string> } | null = null;
  for (const route of routes) {
    const params: Record<string, string> = {};
    const key: number[] = [];
    let ok = true;
    let i = 0;
    for (; i < route.segments.length; i++) {
      const s = route.segments[i]!;
      if (s.kind === 'wildcard') {
        params['*'] = segs.slice(i).join('/');
        key.push(RANK.wildcard);
        break;
      }
      const seg = segs[i];
      if (seg === undefined) {
        ok = false;
        break;
      }
      // A static label matches as written and in its percent-encoded UTF-8 form (issue 16).
      if ((s.kind === 'static' || s.kind === 'trailing') && seg !== s.text && seg !== encodedLabel(s.text)) {
        ok = false;
        break;
      }
      if (s.kind === 'param') {
        if (seg === '') {
          ok = false;
          break;
        }
        params[s.text] = seg;
      }
      key.push(RANK[s.kind]);
    }
    if (!ok) continue;
    const hasWildcard = route.segments.some((s) => s.kind === 'wildcard');
    if (!hasWildcard) {
      if (segs.length !== route.segments.length) continue;
      key.push(-1);
    }
    if (best === null || compareKeys(key, best.key) < 0) best = { route, key, params };
  }
  return best;
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

const staticLabel = fc.constantFrom('a', 'b', 'ab', 'users', 'x', 'a.b', "~it's", 'é', '"q"');
const requestSegment = fc.constantFrom(
  'a',
  'b',
  'ab',
  'users',
  'x',
  'a.b',
  '',
  'zz',
  '%41',
  'A',
  'é',
  '%C3%A9',
  '"q"',
  '%22q%22',
);
const routeSpec = fc.record({
  parts: fc.array(fc.oneof(staticLabel, staticLabel, fc.constant(':')), { maxLength: 4 }),
  wildcard: fc.boolean(),
  trailing: fc.boolean(),
  nameSeed: fc.constantFrom('p', 'q', 'id'),
});

function patternOf(spec: { parts: string[]; wildcard: boolean; trailing: boolean; nameSeed: string }): string {
  const parts = spec.parts.map((p, i) => (p === ':' ? `:${spec.nameSeed}${i}` : p));
  if (spec.wildcard) parts.push('*');
  return `/${parts.join('/')}${spec.trailing && !spec.wildcard && parts.length > 0 ? '/' : ''}`;
}

describe('Router against the reference matcher (fast-check)', () => {
  // The compiled matcher (the default) and the interpreted tree (`compile: false`) both agree with it.
  for (const [strict, compile] of [
    [false, true],
    [true, true],
    [false, false],
    [true, false],
  ] as const) {
    it(`agrees on random route sets and paths (strictTrailingSlash: ${strict}, compile: ${compile})`, () => {
      fc.assert(
        fc.property(
          fc.array(routeSpec, { minLength: 1, maxLength: 12 }),
          fc.array(fc.tuple(fc.boolean(), fc.array(requestSegment, { maxLength: 5 }), fc.boolean()), {
            minLength: 1,
            maxLength: 8,
          }),
          (specs, requests) => {
            const router = new Router({ strictTrailingSlash: strict, compile });
            const routes: RefRoute[] = [];
            specs.forEach((spec, id) => {
              const pattern = patternOf(spec);
              try {
                router.get(pattern, (() => id) as () => void);
              } catch (error) {
                expect((error as Error).message).toMatch(/^Duplicate route: GET /);
                return;
              }
              routes.push({ pattern, segments: parsePattern(pattern, strict), id });
            });
            for (const [lead, segs, trail] of requests) {
              const path = `${lead ? '/' : ''}${segs.join('/')}${trail ? '/' : ''}`;
              const expected = referenceMatch(routes, path, strict);
              const actual = router.lookup('GET', path);
              if (expected === null) {
                expect(actual).toBeNull();
              } else {
                expect(actual).not.toBeNull();
                expect((actual!.handler as unknown as () => number)()).toBe(expected.route.id);
                expect({ ...actual!.params }).toEqual(expected.params);
              }
            }
          },
        ),
        { numRuns: 10_000 },
      );
    });
  }

  it.each([true, false])('never throws on arbitrary methods and paths (compile: %s)', (compile) => {
    const router = new Router({ compile });
    for (const p of ['/', '/a/:b', '/a/b/*', '/:x/:y/:z', '/users/admin', '/files/*']) router.get(p, () => undefined);
    router.post('/a/:b', () => undefined);
    fc.assert(
      fc.property(fc.string(), fc.string({ unit: 'binary' }), (method, path) => {
        router.lookup(method, path);
        router.lookup('GET', path);
        router.allowedMethods(path);
      }),
      { numRuns: 10_000 },
    );
  });
});
