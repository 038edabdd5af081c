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
  /** Static children by the first character code of their label (ASCII only; labels are ASCII). */
  staticIndex: (RadixNode<H>[] | undefined)[] | null = null;
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
    this.reindex();
    return child;
  }

  private reindex(): void {
    if (this.staticChildren.length <= INDEX_THRESHOLD) {
      this.staticIndex = null;
      return;
    }
    const index: (RadixNode<H>[] | undefined)[] = new Array(128).fill(undefined);
    for (const child of this.staticChildren) (index[child.label.charCodeAt(0)] ??= []).push(child);
    this.staticIndex = index;
  }
}

const EMPTY_PARAMS: Readonly<Record<string, string>> = Object.freeze(Object.create(null));

/** Params object for routes with no parameters: shared and frozen, never allocated per lookup. */
export function emptyParams(): Readonly<Record<string, string>> {
  return EMPTY_PARAMS;
}

/**
 * Compiles a builder that creates the params object as one literal, so every match of a route
 * yields objects of one hidden class. Names are validated identifiers (or `*`) and are emitted as
 * JSON-quoted computed keys, so `__proto__` becomes an own property, never a prototype.
 */
export function compileParamsBuilder(paramNames: readonly string[], hasWildcard: boolean): ParamsBuilder {
  const fields = paramNames.map((name, i) => `[${JSON.stringify(name)}]: path.slice(starts[${i}], ends[${i}])`);
  if (hasWildcard) fields.push(`["*"]: path.slice(wildStart, wildEnd)`);
  return new Function(
    'path',
    'starts',
    'ends',
    'wildStart',
    'wildEnd',
    `return { ${fields.join(', ')} };`,
  ) as ParamsBuilder;
}
