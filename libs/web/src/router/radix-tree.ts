import { compileMatcher, type CompiledMatchState } from './compiled-matcher.js';
import { closureParamsBuilder, emptyParams, RadixNode, type RouteRecord } from './node.js';
import type { ParsedRoutePath } from './route-path.js';

/** Positions captured by the last successful {@link RadixTree.find}. */
export interface MatchState {
  starts: Int32Array;
  ends: Int32Array;
  wildStart: number;
  wildEnd: number;
}

/**
 * One method's route table: a whole-path table for fully static routes plus a segment tree with
 * static > param > wildcard priority and backtracking (web-and-viewset §4.1).
 *
 * Two matchers answer the same: the interpreted {@link RadixTree.interpret} (the reference, and
 * the only one with `compile: false`, where code generation is not allowed) and, by default, the
 * compiled matcher of {@link compileMatcher}, generated on the first lookup after a registration
 * change (or eagerly with {@link RadixTree.compile}). The interpreted search allocates nothing:
 * segments are compared in place, parameter offsets go to preallocated typed arrays, and the
 * params object is built only on a param match ({@link RadixTree.paramsOf}).
 */
export class RadixTree<H> {
  private readonly root = new RadixNode<H>('');
  private readonly statics = new Map<string, RouteRecord<H>>();
  private readonly shapes = new Map<string, string>();
  private maxParams = 0;
  readonly state: MatchState = { starts: new Int32Array(4), ends: new Int32Array(4), wildStart: 0, wildEnd: 0 };
  private path = '';
  private end = 0;
  private compiledState: CompiledMatchState | null = null;
  /**
   * Finds the route for a raw request path (no query); the params of a route with parameters are
   * then read with {@link paramsOf}. The compiled matcher once generated, else the interpreter.
   */
  find: (path: string) => RouteRecord<H> | null;

  constructor(
    private readonly strictTrailingSlash: boolean,
    private readonly compiles = true,
  ) {
    this.find = compiles ? this.compileOnFirstFind : this.interpret;
  }

  /** Generates the compiled matcher now (a no-op with `compile: false`). */
  compile(): void {
    if (!this.compiles) return;
    const { find, state } = compileMatcher(this.root, this.statics, this.strictTrailingSlash);
    this.compiledState = state;
    this.find = find;
  }

  /** The raw params object of `record`, just returned by {@link find} for `path`. */
  paramsOf(path: string, record: RouteRecord<H>): Record<string, string> {
    if (this.compiledState !== null) return this.compiledState.params;
    const s = this.state;
    return record.buildParams(path, s.starts, s.ends, s.wildStart, s.wildEnd);
  }

  private readonly compileOnFirstFind = (path: string): RouteRecord<H> | null => {
    this.compile();
    return this.find(path);
  };

  /** The pattern of an already registered route with the same shape, if any. */
  existing(parsed: ParsedRoutePath): string | undefined {
    return this.shapes.get(parsed.shape);
  }

  /**
   * Adds a route; the caller has checked for a duplicate shape. `exposed` is what
   * `staticResult.handler` shows to lookup callers (defaults to `handler`).
   */
  insert(parsed: ParsedRoutePath, handler: H, exposed: unknown = handler): RouteRecord<H> {
    // A label with an encoded form hangs under both: the route ends on every resulting node.
    let nodes = [this.root];
    for (const segment of parsed.segments) {
      if (segment.kind === 'static') {
        const { label, encoded } = segment;
        nodes = nodes.flatMap((n) =>
          encoded === undefined ? [n.staticChild(label)] : [n.staticChild(label), n.staticChild(encoded)],
        );
      } else if (segment.kind === 'param') nodes = nodes.map((n) => (n.paramChild ??= new RadixNode<H>(':')));
    }
    const record: RouteRecord<H> = {
      handler,
      paramNames: parsed.paramNames,
      hasWildcard: parsed.hasWildcard,
      // Used by the interpreter only: the compiled matcher builds its params objects itself.
      buildParams: closureParamsBuilder(parsed.paramNames, parsed.hasWildcard),
      staticResult:
        parsed.paramNames.length === 0 && !parsed.hasWildcard
          ? Object.freeze({ handler: exposed, params: emptyParams() })
          : null,
    };
    for (const node of nodes) {
      if (parsed.hasWildcard) node.wildcardRoute = record;
      else node.route = record;
    }
    if (parsed.staticKey !== null) this.statics.set(parsed.staticKey, record);
    if (parsed.encodedStaticKey !== null) this.statics.set(parsed.encodedStaticKey, record);
    // A registration change: the next lookup generates the matcher again.
    if (this.compiles) {
      this.compiledState = null;
      this.find = this.compileOnFirstFind;
    }
    this.shapes.set(parsed.shape, parsed.display);
    if (parsed.paramNames.length > this.maxParams) {
      this.maxParams = parsed.paramNames.length;
      this.state.starts = new Int32Array(this.maxParams + 1);
      this.state.ends = new Int32Array(this.maxParams + 1);
    }
    return record;
  }

  /** The interpreted search (the reference matcher); positions land in {@link state}. */
  readonly interpret = (path: string): RouteRecord<H> | null => {
    const len = path.length;
    let start = 0;
    if (len > 0 && path.charCodeAt(0) === 47) start = 1;
    let end = len;
    if (!this.strictTrailingSlash && end > start && path.charCodeAt(end - 1) === 47) end--;
    if (start === end) {
      // The root: no segments at all.
      const root = this.root;
      if (root.route !== null) return root.route;
      if (root.wildcardRoute !== null) {
        this.state.wildStart = this.state.wildEnd = end;
        return root.wildcardRoute;
      }
      return null;
    }
    if (start === 1 && this.statics.size !== 0) {
      const hit = this.statics.get(end === len ? path : path.slice(0, end));
      if (hit !== undefined) return hit;
    }
    this.path = path;
    this.end = end;
    return this.match(this.root, start, 0);
  };

  private match(node: RadixNode<H>, pos: number, depth: number): RouteRecord<H> | null {
    const path = this.path;
    const end = this.end;
    if (pos > end) {
      if (node.route !== null) return node.route;
      if (node.wildcardRoute !== null) {
        this.state.wildStart = this.state.wildEnd = end;
        return node.wildcardRoute;
      }
      return null;
    }
    let segEnd = path.indexOf('/', pos);
    if (segEnd === -1 || segEnd > end) segEnd = end;
    const segLen = segEnd - pos;
    if (segLen === 0) {
      if (node.emptyChild !== null) {
        const found = this.match(node.emptyChild, segEnd + 1, depth);
        if (found !== null) return found;
      }
    } else {
      const candidates = node.candidates(path.charCodeAt(pos));
      if (candidates !== undefined) {
        for (let i = 0; i < candidates.length; i++) {
          const child = candidates[i]!;
          if (child.label.length === segLen && path.startsWith(child.label, pos)) {
            const found = this.match(child, segEnd + 1, depth);
            if (found !== null) return found;
            break;
          }
        }
      }
      if (node.paramChild !== null) {
        const found = this.match(node.paramChild, segEnd + 1, depth + 1);
        if (found !== null) {
          this.state.starts[depth] = pos;
          this.state.ends[depth] = segEnd;
          return found;
        }
      }
    }
    if (node.wildcardRoute !== null) {
      this.state.wildStart = pos;
      this.state.wildEnd = end;
      return node.wildcardRoute;
    }
    return null;
  }
}
