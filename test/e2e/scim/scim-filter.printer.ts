/**
 * Random SCIM User filter ASTs and a printer that writes one back as filter text with random
 * spacing, random case of names and operators, URN prefixes, bare or quoted values and JSON
 * escapes, so that parsing the text gives the same AST again.
 */
import fc from 'fast-check';
import type { ScimComparator, ScimFilterValue, ScimUserFilter, ScimUserFilterAttribute } from '@tessera/identity';
import { DATE_ATTRIBUTES, TEXT_COLUMNS, textArbitrary } from './scim-filter.model.js';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User:';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:';
const ALL_OPS: readonly ScimComparator[] = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'];
const ORDER_OPS: readonly ScimComparator[] = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'];

/** Values the generator compares with: drawn from the users (so comparisons hit) or fresh. */
export interface ValuePools {
  readonly texts: readonly string[];
  readonly dates: readonly Date[];
  readonly ids: readonly string[];
}

type Leaf = fc.Arbitrary<ScimUserFilter>;

function compareLeaf(
  attributes: readonly ScimUserFilterAttribute[],
  ops: readonly ScimComparator[],
  values: fc.Arbitrary<ScimFilterValue>,
): Leaf {
  return fc.oneof(
    fc.record({
      kind: fc.constant('compare' as const),
      attribute: fc.constantFrom(...attributes),
      op: fc.constantFrom(...ops),
      value: values,
    }),
    fc.record({
      kind: fc.constant('compare' as const),
      attribute: fc.constantFrom(...attributes),
      op: fc.constantFrom<ScimComparator>('eq', 'ne'),
      value: fc.constant(null),
    }),
    fc.record({ kind: fc.constant('present' as const), attribute: fc.constantFrom(...attributes) }),
  );
}

/** Leaves over the given attribute family (top-level User attributes, or `emails.*` inside a value path). */
function leaves(pools: ValuePools, scope: 'user' | 'emails'): Leaf {
  const text = fc.oneof(fc.constantFrom(...pools.texts), textArbitrary(1, 4), fc.constant(''));
  const constant: Leaf = fc.record({ kind: fc.constant('constant' as const), value: fc.boolean() });
  const emails: Leaf[] = [
    compareLeaf(['emails.value', 'emails.type'], ALL_OPS, text),
    compareLeaf(['emails.primary'], ['eq', 'ne'], fc.boolean()),
  ];
  if (scope === 'emails') return fc.oneof(...emails, constant);
  const date = fc.oneof(
    fc.constantFrom(...pools.dates),
    fc.date({ noInvalidDate: true, min: new Date('2014-01-01'), max: new Date('2027-01-01') }),
  );
  return fc.oneof(
    {
      arbitrary: compareLeaf(
        TEXT_COLUMNS.map(([attribute]) => attribute),
        ALL_OPS,
        text,
      ),
      weight: 4,
    },
    compareLeaf(['active'], ['eq', 'ne'], fc.boolean()),
    compareLeaf([...DATE_ATTRIBUTES], ORDER_OPS, date),
    compareLeaf(
      ['id'],
      ALL_OPS,
      fc.oneof(
        fc.constantFrom(...pools.ids),
        text,
        fc.constantFrom(...pools.ids).map((id) => id.toUpperCase()),
      ),
    ),
    ...emails,
    constant,
  );
}

function tree(leaf: Leaf, depth: number, valuePath?: fc.Arbitrary<ScimUserFilter>): Leaf {
  if (depth === 0) return valuePath ? fc.oneof({ arbitrary: leaf, weight: 3 }, valuePath) : leaf;
  const inner = tree(leaf, depth - 1, valuePath);
  return fc.oneof(
    { arbitrary: inner, weight: 3 },
    fc.record({
      kind: fc.constantFrom('and' as const, 'or' as const),
      filters: fc.array(inner, { minLength: 2, maxLength: 3 }),
    }),
    fc.record({ kind: fc.constant('not' as const), filter: inner }),
  );
}

/** Random User filter ASTs of at most three levels of and/or/not (value paths two more), well inside the bounds. */
export function filterArbitrary(pools: ValuePools): fc.Arbitrary<ScimUserFilter> {
  const valuePath = fc.record({
    kind: fc.constant('valuePath' as const),
    attribute: fc.constant('emails' as const),
    filter: tree(leaves(pools, 'emails'), 1),
  });
  return tree(leaves(pools, 'user'), 3, valuePath).filter((filter) => comparisons(filter) <= 50);
}

function comparisons(filter: ScimUserFilter): number {
  switch (filter.kind) {
    case 'and':
    case 'or':
      return filter.filters.reduce((sum, child) => sum + comparisons(child), 0);
    case 'not':
    case 'valuePath':
      return comparisons(filter.filter);
    default:
      return 1;
  }
}

/** Deterministic choices for one printing (mulberry32). */
export class Choices {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Random case of each letter. */
  anyCase(text: string): string {
    return Array.from(text, (c) => (this.next() < 0.5 ? c.toLowerCase() : c.toUpperCase())).join('');
  }

  /** Whitespace where a separator is required. */
  gap(): string {
    return this.pick([' ', ' ', '  ', '\t', ' \n ']);
  }

  /** Whitespace where none is required (around brackets). */
  pad(): string {
    return this.pick(['', '', ' ', '  ']);
  }
}

const BARE = /^[A-Za-z@.][A-Za-z0-9@.\-_]*$/;

function printValue(value: ScimFilterValue, choices: Choices): string {
  if (value === null) return choices.anyCase('null');
  if (typeof value === 'boolean') {
    return choices.pick([String(value), choices.anyCase(String(value)), `"${choices.anyCase(String(value))}"`]);
  }
  if (value instanceof Date) {
    const iso = value.toISOString();
    return choices.pick([JSON.stringify(iso), iso, JSON.stringify(iso.replace('Z', '+00:00'))]);
  }
  const keyword = ['true', 'false', 'null'].includes(value.toLowerCase());
  if (BARE.test(value) && !keyword && choices.next() < 0.4) return value;
  const json = JSON.stringify(value);
  // Re-escape some characters as \uXXXX (astral ones as their surrogate pair), all valid JSON escapes.
  const inner = Array.from(json.slice(1, -1), (c) =>
    c === '"' || c === '\\' || choices.next() >= 0.15
      ? c
      : Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
  return `"${inner.join('')}"`;
}

function printName(attribute: string, choices: Choices, scoped: boolean): string {
  if (scoped) return choices.anyCase(attribute.slice('emails.'.length));
  if (attribute.startsWith('enterprise.')) {
    return choices.anyCase(ENTERPRISE) + choices.anyCase(attribute.slice('enterprise.'.length));
  }
  const name = attribute === 'emails.value' && choices.next() < 0.3 ? 'emails' : attribute;
  return (choices.next() < 0.2 ? choices.anyCase(CORE) : '') + choices.anyCase(name);
}

/** Prints a filter; compound children always in parentheses so the parse keeps the tree's shape. */
export function printFilter(filter: ScimUserFilter, choices: Choices, scoped = false): string {
  const group = (child: ScimUserFilter) =>
    child.kind === 'and' || child.kind === 'or'
      ? `(${choices.pad()}${printFilter(child, choices, scoped)}${choices.pad()})`
      : printFilter(child, choices, scoped);
  switch (filter.kind) {
    case 'and':
    case 'or':
      return filter.filters.map(group).join(`${choices.gap()}${choices.anyCase(filter.kind)}${choices.gap()}`);
    case 'not':
      return `${choices.anyCase('not')}${choices.pad()}(${choices.pad()}${printFilter(filter.filter, choices, scoped)}${choices.pad()})`;
    case 'constant': {
      const [name, holds, fails] = scoped
        ? [choices.anyCase('display'), 'ne "x"', 'eq "x"']
        : choices.pick([
            [choices.anyCase('phoneNumbers.value'), 'ne "1"', 'eq "1"'],
            [choices.anyCase('addresses'), 'eq null', 'pr'],
            [choices.anyCase(`${ENTERPRISE}manager.value`), 'eq null', 'pr'],
          ]);
      return `${name}${choices.gap()}${filter.value ? holds : fails}`;
    }
    case 'valuePath': {
      const inner = filter.filter;
      const last = inner.kind === 'and' && inner.filters.length === 2 ? inner.filters[1]! : undefined;
      if (last && (last.kind === 'compare' || last.kind === 'present') && choices.next() < 0.5) {
        const [first] = (inner as { filters: readonly ScimUserFilter[] }).filters;
        const path = `${choices.anyCase('emails')}[${choices.pad()}${printFilter(first!, choices, true)}${choices.pad()}]`;
        return `${path}.${printFilter(last, choices, true)}`;
      }
      return `${choices.anyCase('emails')}[${choices.pad()}${printFilter(inner, choices, true)}${choices.pad()}]`;
    }
    case 'present':
      return `${printName(filter.attribute, choices, scoped)}${choices.gap()}${choices.anyCase('pr')}`;
    case 'compare':
      return [
        printName(filter.attribute, choices, scoped),
        choices.anyCase(filter.op),
        printValue(filter.value, choices),
      ].join(choices.gap());
  }
}
