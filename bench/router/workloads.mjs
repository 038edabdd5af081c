// Route table preparation, the reference matcher and the request workloads.
//
// Everything here is deterministic (seeded PRNG) so every run, and every
// router within a run, sees exactly the same requests.

import { githubRoutes } from './github-routes.mjs';

// ---------------------------------------------------------------- routes ---

const isParam = (segment) => segment.charCodeAt(0) === 58; // ':'

/** Unique handler per route: a distinct function (find-my-way insists on a function). */
function makeHandler(id) {
  return function routeHandler() {
    return id;
  };
}

/**
 * `[{ method, path, handler }]` plus bench-only metadata kept in a side array,
 * so the objects handed to the adapters carry exactly the documented fields.
 */
export function buildRouteTable(source = githubRoutes) {
  const routes = [];
  const meta = [];
  for (let id = 0; id < source.length; id++) {
    const { method, path } = source[id];
    const handler = makeHandler(id);
    routes.push({ method, path, handler });
    const segments = path.split('/').slice(1);
    meta.push({
      id,
      method,
      path,
      handler,
      segments,
      paramNames: segments.filter(isParam).map((s) => s.slice(1)),
    });
  }
  return { routes, meta };
}

/**
 * Rewrites parameter names so that every parameter at the same position of
 * the (method-independent) route tree has the same name: the first name seen
 * there wins. Only the names change; the number and order of parameters (and
 * therefore the expected values) stay the same.
 */
export function normalizeParamNames(routes) {
  const canonical = new Map(); // '/repos/:/:/issues/:' -> 'number'
  const renamed = [];
  const out = routes.map((route) => {
    const segments = route.path.split('/');
    let key = '';
    const used = new Set();
    let changed = false;
    for (let i = 1; i < segments.length; i++) {
      const segment = segments[i];
      if (!isParam(segment)) {
        key += '/' + segment;
        continue;
      }
      key += '/:';
      let name = canonical.get(key);
      if (name === undefined) {
        name = segment.slice(1);
        canonical.set(key, name);
      }
      if (used.has(name)) name = `${name}${i}`; // never happens on the GitHub table
      used.add(name);
      if (name !== segment.slice(1)) {
        changed = true;
        segments[i] = ':' + name;
      }
    }
    if (!changed) return route;
    const path = segments.join('/');
    renamed.push(`${route.method} ${route.path} -> ${path}`);
    return { method: route.method, path, handler: route.handler };
  });
  return { routes: out, renamed };
}

// ------------------------------------------------------ reference matcher ---

/**
 * The semantics every router is checked against: exact, case-sensitive
 * segment matching; a `:param` matches one non-empty segment; when several
 * routes match, the one whose first differing segment is static wins
 * (static-before-param priority with full backtracking, as radix routers do).
 */
export function createReferenceMatcher(meta) {
  const byMethod = new Map();
  for (const route of meta) {
    let list = byMethod.get(route.method);
    if (list === undefined) byMethod.set(route.method, (list = []));
    list.push(route);
  }
  return function referenceMatch(method, path) {
    const list = byMethod.get(method);
    if (list === undefined || path.charCodeAt(0) !== 47) return null;
    const parts = path.split('/').slice(1);
    let best = null;
    for (const route of list) {
      const segs = route.segments;
      if (segs.length !== parts.length) continue;
      let ok = true;
      for (let i = 0; i < segs.length && ok; i++) {
        ok = isParam(segs[i]) ? parts[i].length > 0 : segs[i] === parts[i];
      }
      if (ok && (best === null || morePrecise(route, best))) best = route;
    }
    if (best === null) return null;
    const values = [];
    for (let i = 0; i < best.segments.length; i++) if (isParam(best.segments[i])) values.push(parts[i]);
    return { route: best, values };
  };
}

function morePrecise(a, b) {
  for (let i = 0; i < a.segments.length; i++) {
    const pa = isParam(a.segments[i]);
    const pb = isParam(b.segments[i]);
    if (pa !== pb) return !pa;
  }
  return false;
}

// ------------------------------------------------------------- workloads ---

/** mulberry32: small seeded PRNG so the workloads are identical run to run. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (rand, list) => list[Math.floor(rand() * list.length)];
const digits = (rand, min, max) => String(min + Math.floor(rand() * (max - min)));
const hex = (rand, n) => {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rand() * 16)];
  return s;
};

const OWNERS = ['octocat', 'torvalds', 'nodejs', 'facebook', 'microsoft', 'rust-lang', 'vercel', 'denoland'];
const REPOS = ['Hello-World', 'linux', 'node', 'react', 'vscode', 'rust', 'next.js', 'deno'];
const USERS = ['octocat', 'defunkt', 'mojombo', 'pjhyett', 'wycats', 'tj', 'sindresorhus', 'gaearon'];
const ORGS = ['github', 'nodejs', 'facebook', 'microsoft', 'google', 'mozilla'];

/** Realistic value for a parameter, by its documented name. Never equal to a static sibling. */
function paramValue(name, rand) {
  switch (name) {
    case 'owner':
      return pick(rand, OWNERS);
    case 'repo':
    case 'repository':
      return pick(rand, REPOS);
    case 'user':
    case 'username':
    case 'target_user':
    case 'assignee':
      return pick(rand, USERS);
    case 'org':
      return pick(rand, ORGS);
    case 'sha':
      return hex(rand, 40);
    case 'ref':
      return pick(rand, ['master', 'main', 'v1.4.2', 'gh-pages', hex(rand, 40)]);
    case 'branch':
      return pick(rand, ['master', 'main', 'develop', 'release-2.1']);
    case 'archive_format':
      return pick(rand, ['tarball', 'zipball']);
    case 'name':
      return pick(rand, ['bug', 'enhancement', 'question', 'Node', 'Python']);
    case 'path':
      return pick(rand, ['README.md', 'package.json', 'index.js', 'LICENSE']);
    case 'state':
      return pick(rand, ['open', 'closed']);
    case 'keyword':
      return pick(rand, ['router', 'radix', 'http', 'tessera']);
    case 'email':
      return pick(rand, ['octocat@github.com', 'support@example.org']);
    case 'client_id':
      return hex(rand, 20);
    case 'access_token':
    case 'fingerprint':
      return hex(rand, 40);
    case 'id':
    case 'gist_id':
      return rand() < 0.5 ? digits(rand, 1, 9_999_999) : hex(rand, 20);
    default: // number, issue_number, project_id, column_id, ...
      return digits(rand, 1, 99_999);
  }
}

function requestFor(route, rand) {
  const values = [];
  let path = '';
  for (const segment of route.segments) {
    if (isParam(segment)) {
      const value = paramValue(segment.slice(1), rand);
      values.push(value);
      path += '/' + value;
    } else {
      path += '/' + segment;
    }
  }
  return { method: route.method, path, expected: route, values };
}

// Requests that must match nothing (under the reference semantics above).
// No query strings, trailing slashes, empty segments or percent-encoding:
// routers legitimately differ there (some strip `?…` or ignore a trailing
// slash), and that is not what this benchmark compares.
const MISSES = [
  ['GET', '/'],
  ['GET', '/favicon.ico'],
  ['GET', '/robots.txt'],
  ['GET', '/.env'],
  ['GET', '/wp-login.php'],
  ['GET', '/admin'],
  ['GET', '/api/v4/projects'],
  ['GET', '/repos'],
  ['GET', '/repos/octocat'],
  ['GET', '/repos/octocat/Hello-World/git'],
  ['GET', '/repos/octocat/Hello-World/issues/1347/comments/99'],
  ['GET', '/repos/nodejs/node/pulls/1347/reviews/80/comments/5'],
  ['GET', '/repos/nodejs/node/git/refs/heads/main/extra'],
  ['GET', '/user/repos/extra/deep'],
  ['GET', '/users/octocat/unknown'],
  ['GET', '/users/octocat/events/orgs'],
  ['GET', '/gists/aa5a315d61ae9438b18d/comments/1/extra'],
  ['GET', '/orgs/github/teams/extra'],
  ['GET', '/notifications/threads'],
  ['GET', '/teams'],
  ['GET', '/search'],
  ['GET', '/searchx/code'],
  ['GET', '/emoji'],
  ['GET', '/emojis2'],
  ['GET', '/user/emailsx'],
  ['GET', '/Users/octocat'],
  ['GET', '/legacy/issues/search/octocat/Hello-World/open'],
  ['GET', '/applications/abc/tokens/def/extra'],
  ['GET', '/a/b/c/d/e/f/g/h'],
  ['DELETE', '/emojis'],
  ['POST', '/users/octocat'],
  ['PUT', '/repos/octocat/Hello-World/issues'],
  ['PATCH', '/gists/starred/star'],
  ['DELETE', '/user/repos'],
].map(([method, path]) => ({ method, path, expected: null, values: [] }));

function shuffle(list, rand) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/** Single-path workloads (issue 16): one request each, looked up again and again (the "miss" row: three paths). */
const SINGLE_PATHS = {
  static1: [['GET', '/user/repos']],
  param1one: [['GET', '/users/octocat']],
  deep1: [['GET', '/repos/nodejs/node/pulls/42357/reviews/80/comments']],
  miss3: [
    ['GET', '/repos/octocat/Hello-World/git'],
    ['GET', '/users/octocat/unknown'],
    ['GET', '/favicon.ico'],
  ],
};

export const WORKLOADS = [
  { key: 'static1', title: 'static, one path', description: '`GET /user/repos` only' },
  { key: 'param1one', title: '1 param, one path', description: '`GET /users/octocat` only' },
  {
    key: 'deep1',
    title: 'deep params, one path',
    description: '`GET /repos/nodejs/node/pulls/42357/reviews/80/comments` only',
  },
  {
    key: 'miss3',
    title: 'miss, 3 paths',
    description: '`GET /repos/octocat/Hello-World/git`, `GET /users/octocat/unknown`, `GET /favicon.ico`',
  },
  {
    key: 'static',
    title: 'static',
    description: 'every fully static route of the table (no parameters), once each, shuffled',
  },
  { key: 'param1', title: '1 param', description: 'every route with exactly one parameter, once each, shuffled' },
  {
    key: 'deep',
    title: '3-4 params',
    description:
      'every route with 3 or 4 parameters (e.g. /repos/:owner/:repo/issues/:number/comments), once each, shuffled',
  },
  {
    key: 'miss',
    title: 'miss',
    description:
      'requests that match no route: unknown prefixes, near-miss statics, too shallow/deep paths, wrong method',
  },
  {
    key: 'mixed',
    title: 'mixed',
    description: '1024 requests drawn from the whole table (GET x4, /repos/:owner/:repo/** x2) with ~5% misses',
  },
  {
    key: 'fresh',
    title: 'mixed, fresh strings',
    description:
      'the mixed requests, each path decoded from a Buffer per lookup (a new, non-internalized string, as an HTTP server produces); includes the decode cost',
  },
];

/**
 * Returns `{ [key]: { requests: [{ method, path, expected, values }] } }`.
 * Every generated request is checked against the reference matcher, so the
 * expected route really is the one that must win.
 */
export function buildWorkloads(meta, referenceMatch, { mixedSize = 1024 } = {}) {
  const rand = prng(0x7e55e7a);
  const nParams = (r) => r.paramNames.length;

  const fromRoutes = (list) =>
    shuffle(
      list.map((r) => requestFor(r, rand)),
      rand,
    );
  const workloads = {
    static: fromRoutes(meta.filter((r) => nParams(r) === 0)),
    param1: fromRoutes(meta.filter((r) => nParams(r) === 1)),
    deep: fromRoutes(meta.filter((r) => nParams(r) >= 3 && nParams(r) <= 4)),
    miss: shuffle(MISSES.slice(), rand),
  };
  for (const [key, paths] of Object.entries(SINGLE_PATHS))
    workloads[key] = paths.map(([method, path]) => {
      const ref = referenceMatch(method, path);
      return { method, path, expected: ref === null ? null : ref.route, values: ref === null ? [] : ref.values };
    });

  const weights = meta.map((r) => (r.method === 'GET' ? 4 : 1) * (r.path.startsWith('/repos/:owner/:repo/') ? 2 : 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const mixed = [];
  for (let i = 0; i < mixedSize; i++) {
    if (rand() < 0.05) {
      mixed.push(pick(rand, MISSES));
      continue;
    }
    let x = rand() * total;
    let k = 0;
    while (x >= weights[k]) x -= weights[k++];
    mixed.push(requestFor(meta[k], rand));
  }
  workloads.mixed = mixed;
  workloads.fresh = mixed; // same requests; the harness builds the strings per lookup

  for (const [key, requests] of Object.entries(workloads)) {
    for (const req of requests) {
      const ref = referenceMatch(req.method, req.path);
      const got = ref === null ? null : ref.route;
      if (got !== req.expected || (ref !== null && ref.values.join('\u0000') !== req.values.join('\u0000'))) {
        throw new Error(
          `workload ${key}: ${req.method} ${req.path} resolves to ${got ? got.method + ' ' + got.path : 'nothing'}, ` +
            `expected ${req.expected ? req.expected.method + ' ' + req.expected.path : 'nothing'}`,
        );
      }
    }
  }
  const out = {};
  for (const w of WORKLOADS) out[w.key] = { ...w, requests: workloads[w.key] };
  return out;
}
