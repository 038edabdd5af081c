import { invalidFilter, invalidPath } from '../scim.errors.js';
import { scimProperty } from '../resources/scim-values.js';

/**
 * A value filter inside a PATCH path (`emails[type eq "work"]`, `members[value eq "…" or value eq "…"]`),
 * over the sub-attributes of one value of a multi-valued attribute. Attribute names are lower-cased.
 *
 * This small matcher is local on purpose: the list filter (`parseScimUserFilter`) resolves names
 * against the User schema and coerces values for SQL, while a PATCH path filter is evaluated here,
 * in memory, over one email or member value.
 */
export type ScimItemFilter =
  | {
      readonly kind: 'compare';
      readonly attribute: string;
      readonly op: ScimItemComparator;
      readonly value: string | boolean | number | null;
    }
  | { readonly kind: 'present'; readonly attribute: string }
  | { readonly kind: 'and' | 'or'; readonly left: ScimItemFilter; readonly right: ScimItemFilter }
  | { readonly kind: 'not'; readonly filter: ScimItemFilter };

/** Comparison operators of a path filter (RFC 7644 §3.4.2.2). */
export type ScimItemComparator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/** A parsed PATCH `path` (RFC 7644 §3.5.2 `PATH = attrPath / valuePath [subAttr]`). */
export interface ScimPatchPath {
  /** The attribute path before any filter, as sent (`emails`, `name.givenName`, `urn:…:User:department`). */
  readonly attribute: string;
  /** The value filter between brackets, or `null`. */
  readonly filter: ScimItemFilter | null;
  /** The sub-attribute after the brackets (`value` in `emails[type eq "work"].value`), or `null`. */
  readonly sub: string | null;
}

const PATH_MAX = 1000;
const COMPARISONS_MAX = 50;
const DEPTH_MAX = 10;
const ATTRIBUTE_PATH = /^(?:urn:[A-Za-z0-9.:_-]+:)?\$?[A-Za-z][A-Za-z0-9_-]*(?:\.\$?[A-Za-z][A-Za-z0-9_-]*)?$/u;
const SUB_ATTRIBUTE = /^\$?[A-Za-z][A-Za-z0-9_-]*$/u;
const COMPARATORS = new Set<string>(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/u;

/** Index of the quote closing the JSON string opening at `start`, or -1. */
function closingQuote(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index += 1) {
    if (text[index] === '\\') index += 1;
    else if (text[index] === '"') return index;
  }
  return -1;
}

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index] ?? '';
    if (/\s/u.test(char)) index += 1;
    else if (char === '(' || char === ')') {
      tokens.push(char);
      index += 1;
    } else if (char === '"') {
      const end = closingQuote(text, index);
      if (end < 0) throw invalidFilter();
      tokens.push(text.slice(index, end + 1));
      index = end + 1;
    } else {
      let end = index;
      while (end < text.length && !/[\s()"]/u.test(text[end] ?? '')) end += 1;
      tokens.push(text.slice(index, end));
      index = end;
    }
  }
  return tokens;
}

function literal(token: string): string | boolean | number | null {
  if (token.startsWith('"')) {
    try {
      return JSON.parse(token) as string;
    } catch {
      throw invalidFilter();
    }
  }
  const lower = token.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null') return null;
  if (NUMBER.test(token)) return Number(token);
  // Lenient: a bare word is a string (`value eq Employee`).
  return token;
}

/** Recursive descent over the tokens: `or` < `and` < `not` / parentheses / comparison. */
class ItemFilterParser {
  private position = 0;
  private comparisons = 0;

  constructor(private readonly tokens: readonly string[]) {}

  parse(): ScimItemFilter {
    const filter = this.or(0);
    if (this.position !== this.tokens.length) throw invalidFilter();
    return filter;
  }

  private peek(): string | undefined {
    return this.tokens[this.position];
  }

  private next(): string {
    const token = this.tokens[this.position];
    if (token === undefined) throw invalidFilter();
    this.position += 1;
    return token;
  }

  private or(depth: number): ScimItemFilter {
    let left = this.and(depth);
    while (this.peek()?.toLowerCase() === 'or') {
      this.position += 1;
      left = { kind: 'or', left, right: this.and(depth) };
    }
    return left;
  }

  private and(depth: number): ScimItemFilter {
    let left = this.unary(depth);
    while (this.peek()?.toLowerCase() === 'and') {
      this.position += 1;
      left = { kind: 'and', left, right: this.unary(depth) };
    }
    return left;
  }

  private unary(depth: number): ScimItemFilter {
    if (depth > DEPTH_MAX) throw invalidFilter();
    const token = this.next();
    if (token.toLowerCase() === 'not') {
      if (this.next() !== '(') throw invalidFilter();
      return { kind: 'not', filter: this.group(depth + 1) };
    }
    if (token === '(') return this.group(depth + 1);
    return this.comparison(token);
  }

  private group(depth: number): ScimItemFilter {
    const inner = this.or(depth);
    if (this.next() !== ')') throw invalidFilter();
    return inner;
  }

  private comparison(name: string): ScimItemFilter {
    if (!ATTRIBUTE_PATH.test(name)) throw invalidFilter();
    this.comparisons += 1;
    if (this.comparisons > COMPARISONS_MAX) throw invalidFilter();
    // `value`, `emails.value` and `urn:…:User:emails.value` all name the item's `value`.
    const attribute = (name.split(':').pop() ?? name).split('.').pop()?.toLowerCase() ?? '';
    const op = this.next().toLowerCase();
    if (op === 'pr') return { kind: 'present', attribute };
    if (!COMPARATORS.has(op)) throw invalidFilter();
    const value = this.next();
    if (value === '(' || value === ')') throw invalidFilter();
    return { kind: 'compare', attribute, op: op as ScimItemComparator, value: literal(value) };
  }
}

/** Index of the `]` closing the `[` at `open`, skipping quoted strings, or -1. */
function closingBracket(text: string, open: number): number {
  for (let index = open + 1; index < text.length; index += 1) {
    const char = text[index];
    if (char === '"') {
      index = closingQuote(text, index);
      if (index < 0) return -1;
    } else if (char === ']') return index;
  }
  return -1;
}

/**
 * Parses a PATCH `path`: `attr`, `attr.sub`, `urn:…:attr`, `attr[filter]`, `attr[filter].sub`.
 * A malformed path → `invalidPath`; a malformed filter between the brackets → `invalidFilter`.
 *
 * @example
 * parseScimPatchPath('emails[type eq "work"].value');
 * // { attribute: 'emails', filter: { kind: 'compare', attribute: 'type', op: 'eq', value: 'work' }, sub: 'value' }
 */
export function parseScimPatchPath(text: string): ScimPatchPath {
  const path = text.trim();
  if (path === '' || path.length > PATH_MAX) throw invalidPath();
  const open = path.indexOf('[');
  if (open < 0) {
    if (!ATTRIBUTE_PATH.test(path)) throw invalidPath();
    return { attribute: path, filter: null, sub: null };
  }
  const attribute = path.slice(0, open).trim();
  const close = closingBracket(path, open);
  if (!ATTRIBUTE_PATH.test(attribute) || close < 0) throw invalidPath();
  const rest = path.slice(close + 1);
  if (rest !== '' && !(rest.startsWith('.') && SUB_ATTRIBUTE.test(rest.slice(1)))) throw invalidPath();
  const filter = new ItemFilterParser(tokenize(path.slice(open + 1, close))).parse();
  return { attribute, filter, sub: rest === '' ? null : rest.slice(1) };
}

/** Code-point order (as SQL `collate "C"` over UTF-8), not UTF-16 code-unit order. */
function codePointOrder(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const difference = (left[index]?.codePointAt(0) ?? 0) - (right[index]?.codePointAt(0) ?? 0);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

function compareText(actual: string, op: ScimItemComparator, expected: string): boolean {
  const a = actual.toLowerCase();
  const b = expected.toLowerCase();
  switch (op) {
    case 'eq':
      return a === b;
    case 'ne':
      return a !== b;
    case 'co':
      return a.includes(b);
    case 'sw':
      return a.startsWith(b);
    case 'ew':
      return a.endsWith(b);
    case 'gt':
      return codePointOrder(a, b) > 0;
    case 'ge':
      return codePointOrder(a, b) >= 0;
    case 'lt':
      return codePointOrder(a, b) < 0;
    case 'le':
      return codePointOrder(a, b) <= 0;
  }
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * Whether one value of a multi-valued attribute (`{value, type, primary}`) satisfies a path filter.
 * Strings compare case-insensitively (emails and member ids are not caseExact); an absent
 * sub-attribute satisfies only `ne`; `eq null` means absent; booleans also match `"true"`/`"false"`.
 *
 * @example
 * matchScimItem(parseScimPatchPath('emails[type eq "work"]').filter!, { value: 'a@b.c', type: 'Work' }); // true
 */
export function matchScimItem(filter: ScimItemFilter, item: Readonly<Record<string, unknown>>): boolean {
  switch (filter.kind) {
    case 'and':
      return matchScimItem(filter.left, item) && matchScimItem(filter.right, item);
    case 'or':
      return matchScimItem(filter.left, item) || matchScimItem(filter.right, item);
    case 'not':
      return !matchScimItem(filter.filter, item);
    case 'present':
      return present(scimProperty(item, filter.attribute));
    case 'compare': {
      const actual = scimProperty(item, filter.attribute);
      if (filter.value === null) return filter.op === 'eq' ? !present(actual) : filter.op === 'ne' && present(actual);
      if (!present(actual)) return filter.op === 'ne';
      return compareText(String(actual), filter.op, String(filter.value));
    }
  }
}

/**
 * The `attr eq value` comparisons a filter requires through `and` only (`{type: 'work'}` for
 * `type eq "work"`): what a value created for an unmatched path must carry.
 *
 * @example
 * scimFilterEqualities(parseScimPatchPath('emails[type eq "work"]').filter!); // { type: 'work' }
 */
export function scimFilterEqualities(filter: ScimItemFilter): Record<string, unknown> {
  if (filter.kind === 'compare' && filter.op === 'eq' && filter.value !== null) {
    return { [filter.attribute]: filter.value };
  }
  if (filter.kind === 'and') return { ...scimFilterEqualities(filter.left), ...scimFilterEqualities(filter.right) };
  return {};
}
