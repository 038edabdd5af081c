import type { RadixNode, RouteRecord } from './node.js';

/** What a compiled matcher leaves behind after a match of a route with parameters. */
export interface CompiledMatchState {
  /** The raw params object of the last match of a route with parameters (one literal per route). */
  params: Record<string, string>;
}

/** A compiled method tree: the same answers as {@link RadixTree.find}, as straight-line code. */
export type CompiledFind<H> = (path: string) => RouteRecord<H> | null;

/** Labels up to this length are compared char code by char code, longer ones with `startsWith`. */
const INLINE_LABEL = 12;

/**
 * The test that `label` starts at `start` in `path`: inline char code comparisons for a short
 * label (numbers only in the code; past the end of `path` a char code is `NaN` and fails), or
 * `startsWith` with a JSON string literal for a long one. `firstKnown`: a `switch` already
 * compared the first char code.
 */
function labelTest(label: string, start: string, firstKnown: boolean): string {
  if (label.length > INLINE_LABEL) return `path.startsWith(${JSON.stringify(label)}, ${start})`;
  const tests: string[] = [];
  for (let i = firstKnown ? 1 : 0; i < label.length; i++)
    tests.push(`path.charCodeAt(${start}${i === 0 ? '' : ` + ${i}`}) === ${label.charCodeAt(i)}`);
  return tests.length === 0 ? 'true' : tests.join(' && ');
}

/** Static children past this count are dispatched with a `switch` on the segment's first char code. */
const SWITCH_THRESHOLD = 4;
/** A subtree with more code than this becomes a function of its own (V8 optimises small functions). */
const SPLIT_CHARS = 2000;

interface Capture {
  readonly start: string;
  readonly end: string;
}

/**
 * Generates the matcher of one method tree (web-and-viewset §4.1, issue 16): the tree's
 * depth-first search with backtracking unrolled into nested blocks — a static child as char code
 * comparisons in place followed by a `/` or the end (behind a `switch` on the first char code
 * when there are many), a parameter as the `indexOf('/')` slice it spans, a wildcard as the rest
 * of the path — with positions in locals, no per-lookup arrays, and the params object built as one
 * literal only when a route with parameters matches. Fully static paths are answered from
 * `statics` first; subtrees past {@link SPLIT_CHARS} of code become functions of their own.
 *
 * Nothing of a route string reaches the code as text: short labels become char code numbers,
 * long ones JSON string literals (quotes, backslashes, `${`, U+2028/U+2029 and non-ASCII are
 * escaped or inert there), parameter names are validated identifiers emitted as JSON-quoted keys
 * (`__proto__` as a computed key), and records are referenced by index.
 *
 * @example
 * const { find, state } = compileMatcher(root, statics, false);
 * const record = find('/users/42'); // state.params → { id: '42' }
 */
export function compileMatcher<H>(
  root: RadixNode<H>,
  statics: ReadonlyMap<string, RouteRecord<H>>,
  strictTrailingSlash: boolean,
): { find: CompiledFind<H>; state: CompiledMatchState } {
  const records: RouteRecord<H>[] = [];
  const indexOf = new Map<RouteRecord<H>, number>();
  const functions: string[] = [];
  let counter = 0;
  const fresh = (prefix: string) => `${prefix}${counter++}`;

  const record = (route: RouteRecord<H>): string => {
    let index = indexOf.get(route);
    if (index === undefined) {
      index = records.length;
      records.push(route);
      indexOf.set(route, index);
    }
    return `R[${index}]`;
  };

  const leaf = (route: RouteRecord<H>, captures: readonly Capture[], wildcard?: Capture): string => {
    if (route.staticResult !== null) return `return ${record(route)};`;
    // Quoted keys keep the literal's fast path; `__proto__` only as a computed key, so that it is an
    // own property and never the prototype.
    const key = (name: string) => (name === '__proto__' ? '["__proto__"]' : JSON.stringify(name));
    const fields = route.paramNames.map(
      (name, i) => `${key(name)}: path.slice(${captures[i]!.start}, ${captures[i]!.end})`,
    );
    if (route.hasWildcard && wildcard !== undefined)
      fields.push(`["*"]: path.slice(${wildcard.start}, ${wildcard.end})`);
    return `st.params = { ${fields.join(', ')} }; return ${record(route)};`;
  };

  const below = (node: RadixNode<H>) =>
    node.staticChildren.length > 0 ||
    node.emptyChild !== null ||
    node.paramChild !== null ||
    node.wildcardRoute !== null;

  /** Code for `node` when a segment starts at `start` (`start <= end`). */
  const nodeCode = (node: RadixNode<H>, start: string, captures: readonly Capture[]): string => {
    let code = '';
    if (node.staticChildren.length > 0 || node.emptyChild !== null || node.paramChild !== null) {
      // An empty segment (`//`, or a trailing `/` kept by strict mode) only ever matches the empty
      // label; a static label is compared in place and must end at a `/` or at the end, so only a
      // parameter needs the segment's end searched.
      code += `if (${start} === end || path.charCodeAt(${start}) === 47) {`;
      if (node.emptyChild !== null) {
        const e = fresh('e');
        code += `const ${e} = ${start};\n${childCode(node.emptyChild, e, captures)}`;
      }
      code += '} else {\n';
      code += staticCode(node, start, captures);
      if (node.paramChild !== null) {
        const e = fresh('e');
        code += `{ let ${e} = path.indexOf('/', ${start}); if (${e} === -1) ${e} = end;\n`;
        code += `${childCode(node.paramChild, e, [...captures, { start, end: e }])}}\n`;
      }
      code += '}\n';
    }
    if (node.wildcardRoute !== null) code += leaf(node.wildcardRoute, captures, { start, end: 'end' });
    return code;
  };

  const staticCode = (node: RadixNode<H>, start: string, captures: readonly Capture[]): string => {
    const test = (child: RadixNode<H>, firstKnown: boolean) => {
      const e = fresh('e');
      const length = child.label.length;
      return (
        `if (${labelTest(child.label, start, firstKnown)}) {\n` +
        `const ${e} = ${start} + ${length};\n` +
        `if (${e} === end || path.charCodeAt(${e}) === 47) {\n${childCode(child, e, captures)}}\n}\n`
      );
    };
    const children = node.staticChildren;
    if (children.length <= SWITCH_THRESHOLD) return children.map((child) => test(child, false)).join('');
    const byFirst = new Map<number, RadixNode<H>[]>();
    for (const child of children) {
      const first = child.label.charCodeAt(0);
      byFirst.set(first, [...(byFirst.get(first) ?? []), child]);
    }
    let code = `switch (path.charCodeAt(${start})) {\n`;
    for (const [first, group] of byFirst)
      code += `case ${first}: {\n${group.map((child) => test(child, true)).join('')}break; }\n`;
    return `${code}}\n`;
  };

  /** Code for `child` once its segment, ending at `e`, matched. */
  const childCode = (child: RadixNode<H>, e: string, captures: readonly Capture[]): string => {
    const runout =
      child.route !== null
        ? leaf(child.route, captures)
        : child.wildcardRoute !== null
          ? leaf(child.wildcardRoute, captures, { start: 'end', end: 'end' })
          : '';
    let deeper = '';
    if (below(child)) {
      // The subtree's code names the captured positions s0, t0, s1, … itself: inline, they are
      // bound in a block; past SPLIT_CHARS of code, the subtree becomes a function of its own taking
      // them as arguments (V8 optimises small functions; one huge function would stay unoptimised).
      const p = fresh('p');
      const inner = captures.map((_, i) => ({ start: `s${i}`, end: `t${i}` }));
      const body = nodeCode(child, p, inner);
      const args = [`${e} + 1`, ...captures.flatMap((c) => [c.start, c.end])];
      if (body.length > SPLIT_CHARS) {
        const name = fresh('f');
        const params = [p, ...inner.flatMap((c) => [c.start, c.end])];
        functions.push(`function ${name}(path, end, ${params.join(', ')}) {\n${body}return null;\n}\n`);
        deeper = `{ const r = ${name}(path, end, ${args.join(', ')}); if (r !== null) return r; }\n`;
      } else {
        const names = [p, ...inner.flatMap((c) => [c.start, c.end])];
        const bindings = names.map((name, i) => `${name} = ${args[i]}`).filter((_, i) => names[i] !== args[i]);
        deeper = `{ const ${bindings.join(', ')};\n${body}}\n`;
      }
    }
    if (runout === '' && deeper === '') return '';
    return `if (${e} === end) {${runout}} else {\n${deeper}}\n`;
  };

  const rootRunout =
    root.route !== null
      ? leaf(root.route, [])
      : root.wildcardRoute !== null
        ? leaf(root.wildcardRoute, [], { start: 'end', end: 'end' })
        : 'return null;';
  // The lengths of the static paths: a path of another length skips hashing it for the table.
  const lengths = new Uint8Array(Math.max(0, ...[...statics.keys()].map((key) => key.length)) + 1);
  for (const key of statics.keys()) lengths[key.length] = 1;
  const body =
    `return function find(path) {\n` +
    `const len = path.length;\n` +
    `let start = 0;\n` +
    `if (len > 0 && path.charCodeAt(0) === 47) start = 1;\n` +
    `let end = len;\n` +
    (strictTrailingSlash ? '' : `if (end > start && path.charCodeAt(end - 1) === 47) end--;\n`) +
    `if (start === end) {${rootRunout}}\n` +
    (statics.size === 0
      ? ''
      : `if (start === 1 && end < ${lengths.length} && L[end] === 1) { const hit = S.get(end === len ? path : path.slice(0, end)); if (hit !== undefined) return hit; }\n`) +
    nodeCode(root, 'start', []) +
    `return null;\n};\n`;
  const state: CompiledMatchState = { params: {} };
  const source = `'use strict';\n${functions.join('')}${body}`;
  const find = new Function('R', 'S', 'L', 'st', source)(records, statics, lengths, state) as CompiledFind<H>;
  return { find, state };
}
