import { compileParamsBuilder, emptyParams, RadixNode, type RouteRecord } from './node.js';
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
 * `find` allocates nothing: segments are compared in place (`startsWith` at an offset, no
 * `split`, no regex), parameter offsets go to preallocated typed arrays, and the params object is
 * built only by the caller, only on a param match.
 */
export class RadixTree<H> {
  private readonly root = new RadixNode<H>('');
  private readonly statics = new Map<string, RouteRecord<H>>();
  private readonly shapes = new Map<string, string>();
  private maxParams = 0;
  readonly state: MatchState = { starts: new Int32Array(4), ends: new Int32Array(4), wildStart: 0, wildEnd: 0 };
  private path = '';
  private end = 0;

  constructor(private readonly strictTrailingSlash: boolean) {}

  /** The pattern of an already registered route with the same shape, if any. */
  existing(parsed: ParsedRoutePath): string | undefined {
    return this.shapes.get(parsed.shape);
  }

  /**
   * Adds a route; the caller has checked for a duplicate shape. `exposed` is what
   * `staticResult.handler` shows to lookup callers (defaults to `handler`).
   */
  insert(parsed: ParsedRoutePath, handler: H, exposed: unknown = handler): RouteRecord<H> {
    let node = this.root;
    for (const segment of parsed.segments) {
      if (segment.kind === 'static') node = node.staticChild(segment.label);
      else if (segment.kind === 'param') node = node.paramChild ??= new RadixNode<H>(':');
    }
    const record: RouteRecord<H> = {
      handler,
      paramNames: parsed.paramNames,
      hasWildcard: parsed.hasWildcard,
      buildParams: compileParamsBuilder(parsed.paramNames, parsed.hasWildcard),
      staticResult:
        parsed.paramNames.length === 0 && !parsed.hasWildcard
          ? Object.freeze({ handler: exposed, params: emptyParams() })
          : null,
    };
    if (parsed.hasWildcard) node.wildcardRoute = record;
    else node.route = record;
    if (parsed.staticKey !== null) this.statics.set(parsed.staticKey, record);
    this.shapes.set(parsed.shape, parsed.display);
    if (parsed.paramNames.length > this.maxParams) {
      this.maxParams = parsed.paramNames.length;
      this.state.starts = new Int32Array(this.maxParams + 1);
      this.state.ends = new Int32Array(this.maxParams + 1);
    }
    return record;
  }

  /** Finds the route for a raw request path (no query); positions land in {@link state}. */
  find(path: string): RouteRecord<H> | null {
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
  }

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
      const candidates = node.staticIndex === null ? node.staticChildren : node.staticIndex[path.charCodeAt(pos)];
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
