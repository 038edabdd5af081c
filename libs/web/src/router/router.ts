import type { Exchange } from '../exchange.js';
import { DEFAULT_BODY_LIMIT_BYTES } from '../exchange.js';
import { HandlerDidNotRespondError } from '../errors.js';
import { MALFORMED_PATH, respondRouterError } from '../router-errors.js';
import { compose, type Middleware, type RouteHandler } from '../pipeline.js';
import { RadixTree } from './radix-tree.js';
import {
  HTTP_METHODS,
  normaliseMethod,
  parseRoutePath,
  RouteRegistrationError,
  type HttpMethod,
} from './route-path.js';
import { decodeParams } from './decode.js';

/** Router options (web-and-viewset §6). */
export interface RouterOptions {
  /** Keep a trailing `/` as part of routes and requests. @default false */
  strictTrailingSlash?: boolean;
  /** A path matched only by other methods: answer 405 + `Allow`, or call `next()`. @default 'respond' */
  methodNotAllowed?: 'respond' | 'next';
  /** Body limit handlers pass to `readBody`/`readJson` (ViewSet routes use it). @default 1048576 */
  bodyLimitBytes?: number;
  /**
   * Match with generated code: each method tree compiles to straight-line JavaScript on the first
   * lookup after a registration change (or at {@link Router.compile}). `false` keeps the
   * interpreted tree, for hosts that forbid code generation from strings (CSP, `--disallow-code-generation-from-strings`).
   * @default true where the runtime allows `new Function`, else false
   */
  compile?: boolean;
}

/** One registered route, as data (used to merge routers and by `resource()`). */
export interface RouteDefinition {
  readonly method: HttpMethod;
  /** The pattern as written, with a leading `/`. */
  readonly path: string;
  readonly middleware: readonly Middleware[];
  readonly handler: RouteHandler;
  /** Listed in `Allow` (false for routes `resource()` registers for unimplemented operations). */
  readonly advertise: boolean;
  /** Where the route came from, named in conflict messages across registrations. */
  readonly source?: string;
}

/** Result of {@link Router.lookup}: the handler and its **raw** parameters. */
export interface RouteMatch {
  readonly handler: RouteHandler;
  readonly params: Readonly<Record<string, string>>;
}

interface CompiledRoute {
  readonly definition: RouteDefinition;
  readonly handler: RouteHandler;
  readonly run: (exchange: Exchange) => Promise<void> | void;
}

type Trees = Record<HttpMethod, RadixTree<CompiledRoute> | undefined>;

/**
 * Route table with one radix tree per method: segment-exact matching, static > param > wildcard
 * with backtracking, percent-decoded params, HEAD → GET, 405 + `Allow` (web-and-viewset §3–5).
 *
 * @example
 * const router = new Router();
 * router.get('/users/:id', (ex) => ex.respond({ body: { id: ex.pathParam('id') } }));
 * pipeline.use(router.asMiddleware());
 */
export class Router {
  readonly strictTrailingSlash: boolean;
  readonly methodNotAllowed: 'respond' | 'next';
  readonly bodyLimitBytes: number;
  /** Whether the method trees match with generated code (option `compile`). */
  readonly compiles: boolean;
  private readonly trees: Trees = {
    GET: undefined,
    HEAD: undefined,
    POST: undefined,
    PUT: undefined,
    PATCH: undefined,
    DELETE: undefined,
    OPTIONS: undefined,
  };
  /** Every shape of every method: one lookup tells whether any tree can match a path. */
  private readonly anyMethod: RadixTree<true>;
  private readonly definitions: RouteDefinition[] = [];

  constructor(options: RouterOptions = {}) {
    this.strictTrailingSlash = options.strictTrailingSlash ?? false;
    this.methodNotAllowed = options.methodNotAllowed ?? 'respond';
    this.bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
    this.compiles = options.compile ?? canGenerateCode();
    this.anyMethod = new RadixTree<true>(this.strictTrailingSlash, this.compiles);
  }

  /**
   * Generates every method tree's matcher now instead of on its first lookup (a no-op with
   * `compile: false`). Registering another route afterwards is allowed: that tree compiles again
   * on its next lookup.
   */
  compile(): this {
    for (const method of HTTP_METHODS) this.trees[method]?.compile();
    this.anyMethod.compile();
    return this;
  }

  get(path: string, ...chain: [...Middleware[], RouteHandler]): this {
    return this.add('GET', path, ...chain);
  }
  post(path: string, ...chain: [...Middleware[], RouteHandler]): this {
    return this.add('POST', path, ...chain);
  }
  put(path: string, ...chain: [...Middleware[], RouteHandler]): this {
    return this.add('PUT', path, ...chain);
  }
  delete(path: string, ...chain: [...Middleware[], RouteHandler]): this {
    return this.add('DELETE', path, ...chain);
  }
  patch(path: string, ...chain: [...Middleware[], RouteHandler]): this {
    return this.add('PATCH', path, ...chain);
  }
  head(path: string, ...chain: [...Middleware[], RouteHandler]): this {
    return this.add('HEAD', path, ...chain);
  }
  options(path: string, ...chain: [...Middleware[], RouteHandler]): this {
    return this.add('OPTIONS', path, ...chain);
  }

  /** Generic form of the DSL: `method` is one of the seven, the last function is the handler. */
  add(method: string, path: string, ...chain: [...Middleware[], RouteHandler]): this {
    const handler = chain[chain.length - 1] as RouteHandler | undefined;
    if (typeof handler !== 'function') {
      throw new RouteRegistrationError(`Missing handler for ${method.toUpperCase()} ${path}`);
    }
    return this.addRoute({
      method: normaliseMethod(method),
      path,
      middleware: chain.slice(0, -1) as Middleware[],
      handler,
      advertise: true,
    });
  }

  /** Registers a route given as data (`resource()` and router merging use this). */
  addRoute(definition: RouteDefinition): this {
    const method = normaliseMethod(definition.method);
    const parsed = parseRoutePath(method, definition.path, this.strictTrailingSlash);
    const tree = (this.trees[method] ??= new RadixTree<CompiledRoute>(this.strictTrailingSlash, this.compiles));
    const existing = tree.existing(parsed);
    if (existing !== undefined) {
      const first = this.definitions.find(
        (d) => d.method === method && parsePathShape(d, this.strictTrailingSlash) === parsed.shape,
      );
      const sources =
        first?.source !== undefined || definition.source !== undefined
          ? ` [registered by ${definition.source ?? 'this router'}; first registered by ${first?.source ?? 'this router'}]`
          : '';
      throw new RouteRegistrationError(
        `Duplicate route: ${method} ${parsed.display} (same shape as ${method} ${existing})${sources}`,
      );
    }
    const stored: RouteDefinition = { ...definition, method, path: parsed.display };
    const run = compose(definition.middleware, definition.handler);
    tree.insert(parsed, { definition: stored, handler: definition.handler, run }, definition.handler);
    if (this.anyMethod.existing(parsed) === undefined) this.anyMethod.insert(parsed, true);
    this.definitions.push(stored);
    return this;
  }

  /** The registered routes, in registration order. */
  routes(): readonly RouteDefinition[] {
    return this.definitions;
  }

  /** Pure lookup (HEAD falls back to GET): the handler with **raw** params, or `null`. */
  lookup(method: string, path: string): RouteMatch | null {
    const tree = this.treeFor(method);
    if (tree === undefined) return null;
    let record = tree.find(path);
    let used = tree;
    if (record === null && method === 'HEAD' && this.trees.GET !== undefined) {
      used = this.trees.GET;
      record = used.find(path);
    }
    if (record === null) return null;
    if (record.staticResult !== null) return record.staticResult as unknown as RouteMatch;
    return { handler: record.handler.handler, params: used.paramsOf(path, record) };
  }

  /**
   * Methods whose tree fully matches `path` (advertised routes only), in `Allow` order; `HEAD`
   * whenever `GET` or `HEAD` matches. `null` when no tree matches the path at all; an empty list
   * when routes match but none is advertised (a ViewSet path with nothing implemented).
   */
  allowedMethods(path: string): HttpMethod[] | null {
    if (this.anyMethod.find(path) === null) return null;
    const allowed: HttpMethod[] = [];
    const get = this.trees.GET?.find(path)?.handler.definition.advertise === true;
    const head = get || this.trees.HEAD?.find(path)?.handler.definition.advertise === true;
    for (const method of HTTP_METHODS) {
      if (
        method === 'GET'
          ? get
          : method === 'HEAD'
            ? head
            : this.trees[method]?.find(path)?.handler.definition.advertise === true
      ) {
        allowed.push(method);
      }
    }
    return allowed;
  }

  /** A middleware that runs the matched route or calls `next()` (web-and-viewset §4). */
  asMiddleware(): Middleware {
    return (exchange, next) => this.dispatch(exchange, next);
  }

  private async dispatch(exchange: Exchange, next: () => Promise<void>): Promise<void> {
    const method = exchange.method;
    const tree = this.treeFor(method);
    if (tree === undefined && !isKnownMethod(method)) return next();
    const path = exchange.path;
    let used = tree;
    let record = tree?.find(path) ?? null;
    if (record === null && method === 'HEAD' && this.trees.GET !== undefined) {
      used = this.trees.GET;
      record = used.find(path);
    }
    if (record === null) {
      if (this.methodNotAllowed === 'next') return next();
      const allowed = this.allowedMethods(path);
      if (allowed === null) return next();
      return respondRouterError(exchange, { kind: 'method_not_allowed', status: 405, allow: allowed });
    }
    if (record.paramNames.length !== 0 || record.hasWildcard) {
      const decoded = decodeParams(used!.paramsOf(path, record));
      if (decoded === null) return respondRouterError(exchange, MALFORMED_PATH);
      exchange.setPathParams(decoded);
    }
    exchange.bodyLimitBytes = this.bodyLimitBytes;
    const route = record.handler;
    await route.run(exchange);
    if (!exchange.responded) throw new HandlerDidNotRespondError(route.definition.method, route.definition.path);
  }

  /** A switch, not an index: request methods are untrusted strings (`__proto__`, `constructor`). */
  private treeFor(method: string): RadixTree<CompiledRoute> | undefined {
    switch (method) {
      case 'GET':
        return this.trees.GET;
      case 'POST':
        return this.trees.POST;
      case 'PUT':
        return this.trees.PUT;
      case 'DELETE':
        return this.trees.DELETE;
      case 'PATCH':
        return this.trees.PATCH;
      case 'HEAD':
        return this.trees.HEAD;
      case 'OPTIONS':
        return this.trees.OPTIONS;
      default:
        return undefined;
    }
  }
}

const KNOWN = new Set<string>(HTTP_METHODS);
function isKnownMethod(method: string): boolean {
  return KNOWN.has(method);
}

function parsePathShape(definition: RouteDefinition, strict: boolean): string {
  return parseRoutePath(definition.method, definition.path, strict).shape;
}

let codeGeneration: boolean | undefined;
/** Whether the runtime allows `new Function` (probed once). */
function canGenerateCode(): boolean {
  if (codeGeneration === undefined) {
    try {
      codeGeneration = new Function('return true')() === true;
    } catch {
      codeGeneration = false;
    }
  }
  return codeGeneration;
}
