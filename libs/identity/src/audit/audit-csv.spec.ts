import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseCsv } from '../../../../test/support/csv-reader.js';
import { csvCell, csvRow } from './audit-csv.js';

const FORMULA_START = ['=', '+', '-', '@', '\t', '\r'];

describe('audit export CSV encoder (RFC 4180, CSV injection guard)', () => {
  it('round-trips any row through a strict RFC 4180 reader, prefixing exactly the formula-like cells with a quote (property)', () => {
    const cell = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom('a', '"', ',', '\r', '\n', '=', '+', '-', '@', '\t', ' ', 'é') }),
    );
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 8 }), (cells) => {
        const [read, ...rest] = parseCsv(csvRow(cells));
        expect(rest).toEqual([]);
        expect(read).toEqual(cells.map((text) => (FORMULA_START.includes(text[0] ?? '') ? `'${text}` : text)));
      }),
    );
  });

  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+1+cmd|/C calc', `'+1+cmd|/C calc`],
    ['-2+3', `'-2+3`],
    ['@SUM(A1:A2)', `'@SUM(A1:A2)`],
    ['\t=1', `'\t=1`],
    ['\r=1', `"'\r=1"`],
    ['a=1', 'a=1'],
    [' =1', ' =1'],
  ])('neutralises the formula-like cell %p', (value, encoded) => {
    expect(csvCell(value)).toBe(encoded);
  });

  it('writes nested objects as quoted JSON text, absent values as empty cells, other values as text', () => {
    expect(csvRow([{ type: 'user', userId: 'u1' }, null, undefined, true, 'x,y', 'plain'])).toBe(
      '"{""type"":""user"",""userId"":""u1""}",,,true,"x,y",plain\r\n',
    );
    expect(JSON.parse(parseCsv(csvRow([{ path: '/a,"b"' }]))[0]![0]!)).toEqual({ path: '/a,"b"' });
  });

  it('quotes a cell holding a bare line feed or carriage return, so a record never spans an unquoted line break', () => {
    expect(csvCell('a\nb')).toBe('"a\nb"');
    expect(csvCell('a\rb')).toBe('"a\rb"');
    expect(csvRow(['', ''])).toBe(',\r\n');
  });
});
