import { invalidFilter, ScimError } from '../scim.errors.js';
import {
  isStoredScimAttribute,
  resolveScimGroupAttribute,
  resolveScimUserAttribute,
  type ScimAttributeDescriptor,
  type ScimAttributeResolution,
} from './scim-attributes.js';
import type {
  ScimComparator,
  ScimFilter,
  ScimGroupFilter,
  ScimGroupSortKey,
  ScimUserFilter,
  ScimUserSortKey,
} from './scim-filter.ast.js';
import { isStorableText, tokenizeScimFilter, type ScimFilterToken } from './scim-filter.lexer.js';
import { bareScimValue, coerceScimValue, type ScimRawValue } from './scim-filter.values.js';

/** Longest filter accepted (characters). */
export const SCIM_FILTER_MAX_LENGTH = 2000;
/** Most comparisons (`attrExp`s) in one filter. */
export const SCIM_FILTER_MAX_COMPARISONS = 50;
/** Deepest nesting of parentheses, `not ( … )` and value paths. */
export const SCIM_FILTER_MAX_DEPTH = 10;

const COMPARATORS = new Set<string>(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
type Resolver = (name: string) => ScimAttributeResolution<string>;
type Leaf = ScimFilter<string>;

/**
 * Parses a User filter (RFC 7644 §3.4.2.2) into the resolved, typed AST: every operator,
 * `and` binding tighter than `or`, `not ( … )`, parentheses, value paths
 * (`emails[type eq "work"].value eq "x"` ≡ `emails[type eq "work" and value eq "x"]`),
 * case-insensitive names and operators, URN-prefixed names, lenient bare values. Attributes of the
 * schemas that are not stored become constants (absent). Anything else throws `invalidFilter`.
 *
 * @example
 * parseScimUserFilter('userName eq "bjensen"'); // { kind: 'compare', attribute: 'userName', op: 'eq', value: 'bjensen' }
 */
export function parseScimUserFilter(text: string): ScimUserFilter {
  return parse(text, resolveScimUserAttribute) as ScimUserFilter;
}

/**
 * Parses a Group filter like {@link parseScimUserFilter} (`displayName eq "x"`,
 * `members[value eq "…"]`, `members eq "…"`).
 *
 * @example
 * parseScimGroupFilter('displayName eq "Admins"');
 */
export function parseScimGroupFilter(text: string): ScimGroupFilter {
  return parse(text, resolveScimGroupAttribute) as ScimGroupFilter;
}

/**
 * Resolves a `sortBy` parameter (case-insensitive, URN prefixes allowed) to a sort key; a
 * multi-valued, complex, unstored or unknown attribute → 400 `invalidValue`.
 *
 * @example
 * parseScimSortBy('name.FamilyName', 'user'); // 'name.familyName'
 */
export function parseScimSortBy(text: string, resource: 'user'): ScimUserSortKey;
export function parseScimSortBy(text: string, resource: 'group'): ScimGroupSortKey;
export function parseScimSortBy(text: string, resource: 'user' | 'group'): ScimUserSortKey | ScimGroupSortKey {
  const found = (resource === 'user' ? resolveScimUserAttribute : resolveScimGroupAttribute)(text.trim());
  if (!isStoredScimAttribute(found) || found.descriptor.type === 'complex' || found.descriptor.multiValued) {
    throw new ScimError(400, 'invalidValue', 'The sortBy attribute is not supported');
  }
  return found.path as ScimUserSortKey & ScimGroupSortKey;
}

function parse(text: string, resolve: Resolver): Leaf {
  if (text.length > SCIM_FILTER_MAX_LENGTH || !isStorableText(text)) throw invalidFilter();
  const parser = new FilterParser(tokenizeScimFilter(text), resolve);
  const filter = parser.parseOr(null);
  if (!parser.atEnd()) throw invalidFilter();
  return filter;
}

/** Recursive descent over the token list; `scope` is the multi-valued attribute of an enclosing value path. */
class FilterParser {
  private index = 0;
  private depth = 0;
  private comparisons = 0;

  constructor(
    private readonly tokens: readonly ScimFilterToken[],
    private readonly resolve: Resolver,
  ) {}

  atEnd(): boolean {
    return this.index >= this.tokens.length;
  }

  parseOr(scope: string | null): Leaf {
    const filters = [this.parseAnd(scope)];
    while (this.takeKeyword('or')) filters.push(this.parseAnd(scope));
    return filters.length === 1 ? filters[0]! : { kind: 'or', filters };
  }

  private parseAnd(scope: string | null): Leaf {
    const filters = [this.parseUnary(scope)];
    while (this.takeKeyword('and')) filters.push(this.parseUnary(scope));
    return filters.length === 1 ? filters[0]! : { kind: 'and', filters };
  }

  private parseUnary(scope: string | null): Leaf {
    const token = this.peek();
    if (token?.kind === '(') return this.nested(scope);
    if (token?.kind === 'word' && token.text.toLowerCase() === 'not' && this.peek(1)?.kind === '(') {
      this.index += 1;
      return { kind: 'not', filter: this.nested(scope) };
    }
    if (token?.kind !== 'word') throw invalidFilter();
    this.index += 1;
    return this.parseAttributeExpression(token.text, scope);
  }

  private nested(scope: string | null): Leaf {
    this.enter('(');
    const filter = this.parseOr(scope);
    this.leave(')');
    return filter;
  }

  private parseAttributeExpression(name: string, scope: string | null): Leaf {
    const path = scope === null ? name : `${scope}.${name}`;
    const found = this.resolve(path);
    // A derived attribute (`groups`) has values this filter cannot see: refuse rather than answer "absent".
    if (found === undefined || ('unstored' in found && found.derived)) throw invalidFilter();
    if (this.peek()?.kind === '[') {
      const multiValued = isStoredScimAttribute(found)
        ? found.descriptor.type === 'complex' && found.descriptor.multiValued === true
        : found.multiValued;
      if (scope !== null || !multiValued) throw invalidFilter();
      return this.parseValuePath(name, found);
    }
    return this.parseComparison(found);
  }

  /** `emails[valFilter]` optionally followed by `.subAttr op value`. */
  private parseValuePath(name: string, found: NonNullable<ScimAttributeResolution<string>>): Leaf {
    this.enter('[');
    let filter = this.parseOr(name);
    this.leave(']');
    const next = this.peek();
    if (next?.kind === 'word' && next.text.startsWith('.')) {
      this.index += 1;
      const sub = this.resolve(`${name}${next.text}`);
      if (sub === undefined || next.text.slice(1).includes('.')) throw invalidFilter();
      filter = { kind: 'and', filters: [filter, this.parseComparison(sub)] };
    }
    if (!isStoredScimAttribute(found)) return { kind: 'constant', value: false };
    return { kind: 'valuePath', attribute: found.path as 'emails' | 'members', filter };
  }

  private parseComparison(found: NonNullable<ScimAttributeResolution<string>>): Leaf {
    this.comparisons += 1;
    if (this.comparisons > SCIM_FILTER_MAX_COMPARISONS) throw invalidFilter();
    const opToken = this.next();
    if (opToken?.kind !== 'word') throw invalidFilter();
    const op = opToken.text.toLowerCase();
    if (op !== 'pr' && !COMPARATORS.has(op)) throw invalidFilter();
    const raw = op === 'pr' ? null : this.parseValue();
    if (!isStoredScimAttribute(found)) {
      if (raw?.kind === 'null' && op !== 'eq' && op !== 'ne') throw invalidFilter();
      // Absent: only `ne <value>` and `eq null` hold.
      return { kind: 'constant', value: raw !== null && (op === 'ne') !== (raw.kind === 'null') };
    }
    const { path, descriptor } = found;
    if (descriptor.type === 'complex') {
      if (descriptor.multiValued) {
        const value = this.resolve(`${path}.value`);
        if (!isStoredScimAttribute(value)) throw invalidFilter();
        return this.leaf(value.path, value.descriptor, op, raw);
      }
      // `name pr`: any sub-attribute present.
      if (op !== 'pr' || path !== 'name') throw invalidFilter();
      const filters = (descriptor.subAttributes ?? []).map((part): Leaf => ({
        kind: 'present',
        attribute: `${path}.${part}`,
      }));
      return { kind: 'or', filters };
    }
    return this.leaf(path, descriptor, op, raw);
  }

  private leaf(attribute: string, descriptor: ScimAttributeDescriptor, op: string, raw: ScimRawValue | null): Leaf {
    if (raw === null) return { kind: 'present', attribute };
    const comparator = op as ScimComparator;
    return { kind: 'compare', attribute, op: comparator, value: coerceScimValue(descriptor, comparator, raw) };
  }

  private parseValue(): ScimRawValue {
    const token = this.next();
    if (token?.kind === 'string') return { kind: 'string', text: token.value };
    if (token?.kind === 'word') return bareScimValue(token.text);
    throw invalidFilter();
  }

  private takeKeyword(keyword: 'and' | 'or'): boolean {
    const token = this.peek();
    if (token?.kind !== 'word' || token.text.toLowerCase() !== keyword) return false;
    this.index += 1;
    return true;
  }

  private enter(open: '(' | '['): void {
    if (this.next()?.kind !== open) throw invalidFilter();
    this.depth += 1;
    if (this.depth > SCIM_FILTER_MAX_DEPTH) throw invalidFilter();
  }

  private leave(close: ')' | ']'): void {
    if (this.next()?.kind !== close) throw invalidFilter();
    this.depth -= 1;
  }

  private peek(offset = 0): ScimFilterToken | undefined {
    return this.tokens[this.index + offset];
  }

  private next(): ScimFilterToken | undefined {
    const token = this.tokens[this.index];
    this.index += 1;
    return token;
  }
}
