/**
 * Node kinds of the per-method radix tree. One node per route segment; a wildcard has no
 * children, so its route hangs directly off its parent (`wildcardRoute`).
 */

/** Where a route's parameters come from, and how its params object is built. */
export interface RouteRecord<H> {
  readonly handler: H;
  readonly paramNames: readonly string[];
  readonly hasWildcard: boolean;
  /** Builds the raw params object from captured positions; shape fixed per route. */
  readonly buildParams: ParamsBuilder;
  /** A shared, frozen `{ handler, params: {} }` for routes without parameters. */
  readonly staticResult: { readonly handler: unknown; readonly params: Readonly<Record<string, string>> } | null;
}

/** Turns captured `[start, end)` offsets into a `{ name: rawValue }` object. */
export type ParamsBuilder = (
  path: string,
  starts: Int32Array,
  ends: Int32Array,
  wildStart: number,
  wildEnd: number,
) => Record<string, string>;

/** Children past this count are indexed by first character code. */
const INDEX_THRESHOLD = 4;

export class RadixNode<H> {
  /** Static label of this node (the segment text); `''` only for the strict trailing-slash node. */
  readonly label: string;
  staticChildren: RadixNode<H>[] = [];
  /**
   * Static children by the first character code of their label, built on the first interpreted
   * lookup after a change (registration never pays for it); labels starting with a non-ASCII
   * character share slot 127 (DEL never starts a label).
   */
  private index: (RadixNode<H>[] | undefined)[] | undefined = undefined;
  /** The strict-mode trailing-slash child (label `''`). */
  emptyChild: RadixNode<H> | null = null;
  paramChild: RadixNode<H> | null = null;
  wildcardRoute: RouteRecord<H> | null = null;
  route: RouteRecord<H> | null = null;

  constructor(label: string) {
    this.label = label;
  }

  /** The static child labelled `label`, created when missing. */
  staticChild(label: string): RadixNode<H> {
    if (label === '') return (this.emptyChild ??= new RadixNode<H>(''));
    let child = this.staticChildren.find((c) => c.label === label);
    if (child) return child;
    child = new RadixNode<H>(label);
    this.staticChildren.push(child);
    this.index = undefined;
    return child;
  }

  /** The static children whose label may start with char code `code` (all of them when few). */
  candidates(code: number): readonly RadixNode<H>[] | undefined {
    if (this.staticChildren.length <= INDEX_THRESHOLD) return this.staticChildren;
    if (this.index === undefined) {
      const index: (RadixNode<H>[] | undefined)[] = new Array(128).fill(undefined);
      for (const child of this.staticChildren) (index[indexSlot(child.label.charCodeAt(0))] ??= []).push(child);
      this.index = index;
    }
    return this.index[indexSlot(code)];
  }
}

/** The slot of a first character code in a node's index of static children. */
export function indexSlot(code: number): number {
  return code > 127 ? 127 : code;
}

const EMPTY_PARAMS: Readonly<Record<string, string>> = Object.freeze(Object.create(null));

/** Params object for routes with no parameters: shared and frozen, never allocated per lookup. */
export function emptyParams(): Readonly<Record<string, string>> {
  return EMPTY_PARAMS;
}

/**
 * Builds the raw params object of a match of the interpreted tree: the route's names as own
 * properties (`__proto__` included, never the prototype), set one by one without code generation.
 */
export function closureParamsBuilder(paramNames: readonly string[], hasWildcard: boolean): ParamsBuilder {
  const names = hasWildcard ? [...paramNames, '*'] : [...paramNames];
  const count = paramNames.length;
  return (path, starts, ends, wildStart, wildEnd) => {
    const params: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) {
      const value = i < count ? path.slice(starts[i], ends[i]) : path.slice(wildStart, wildEnd);
      Object.defineProperty(params, names[i]!, { value, enumerable: true, writable: true, configurable: true });
    }
    return params;
  };
}
