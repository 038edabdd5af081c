/** The case shape of the constraint table and the builders (check, foreign, unique, …) its rows are written with. */
import type { IdentityRows, IdentityTable, Row } from './identity-rows.fixture.js';

/** SQLSTATE of the violation a case expects. */
export type ViolationCode = '23505' | '23514' | '23503';

/** One constraint and a write that violates exactly it. */
export interface ConstraintCase {
  readonly constraint: string;
  readonly code: ViolationCode;
  /** Rows that must be accepted first (e.g. the row a duplicate collides with). */
  readonly arrange?: (rows: IdentityRows) => Promise<Row>;
  /** The write that must be rejected. */
  readonly violate: (rows: IdentityRows, arranged: Row) => Promise<unknown>;
}

type Overrides = Row | ((rows: IdentityRows) => Promise<Row>);

const resolve = async (rows: IdentityRows, over: Overrides): Promise<Row> =>
  typeof over === 'function' ? over(rows) : over;

/** A CHECK: the default row of `table` with `over` applied. */
export function check(constraint: string, table: IdentityTable, over: Overrides): ConstraintCase {
  return { constraint, code: '23514', violate: async (rows) => rows.any(table, await resolve(rows, over)) };
}

/** A FOREIGN KEY: the default row of `table` with `over` (pointing at a missing parent). */
export function foreign(constraint: string, table: IdentityTable, over: Overrides): ConstraintCase {
  return { constraint, code: '23503', violate: async (rows) => rows.any(table, await resolve(rows, over)) };
}

/** A UNIQUE / PRIMARY KEY: a first row, then a second one repeating `same(first)`. */
export function unique(
  constraint: string,
  table: IdentityTable,
  same: (first: Row) => Row,
  first: Overrides = {},
): ConstraintCase {
  return {
    constraint,
    code: '23505',
    arrange: async (rows) => rows.any(table, await resolve(rows, first)),
    violate: (rows, arranged) => rows.any(table, same(arranged)),
  };
}

/** `<table>_version_check`: a negative version (or 0 for SCIM groups, which start at 1). */
export function version(table: IdentityTable, below = -1): ConstraintCase {
  return check(`${table}_version_check`, table, { version: below });
}

/** `<table>_<column>_check` of an enum-like column: a value outside the list. */
export function outsider(table: IdentityTable, column: string, value: string, extra: Row = {}): ConstraintCase {
  return check(`${table}_${column}_check`, table, { [column]: value, ...extra });
}

/** The three CHECKs of a keyed digest triple `<digest>_{algorithm,encoded,key_version}`. */
export function keyedDigest(table: IdentityTable, digest: string): ConstraintCase[] {
  return [
    check(`${table}_${digest}_algorithm_check`, table, { [`${digest}_algorithm`]: 'sha256' }),
    check(`${table}_${digest}_encoded_check`, table, { [`${digest}_encoded`]: 'not-a-32-byte-digest' }),
    check(`${table}_${digest}_key_version_check`, table, { [`${digest}_key_version`]: '' }),
  ];
}

/** A string of `length` characters, for values just over a length limit. */
export const long = (length: number): string => 'x'.repeat(length);
