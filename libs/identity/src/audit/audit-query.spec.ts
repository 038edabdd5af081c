import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decodeAuditCursor, encodeAuditCursor, type AuditCursor } from './audit-cursor.js';
import { parseAuditExportQuery, parseAuditQuery } from './audit-query.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const uuidV7 = fc
  .tuple(hex(8), hex(4), hex(3), fc.constantFrom('8', '9', 'a', 'b'), hex(3), hex(12))
  .map(([a, b, c, variant, d, e]) => `${a}-${b}-7${c}-${variant}${d}-${e}`);
const cursorArb: fc.Arbitrary<AuditCursor> = fc.record({
  organizationId: uuidV7,
  occurredAt: fc.date({
    min: new Date('1970-01-01T00:00:00.000Z'),
    max: new Date('9999-12-31T23:59:59.999Z'),
    noInvalidDate: true,
  }),
  eventId: uuidV7,
});

describe('audit cursor and query parser (identity-http §4.4, identity-model §8.3)', () => {
  it('round-trips every cursor it encodes', () => {
    fc.assert(
      fc.property(cursorArb, (cursor) => {
        const text = encodeAuditCursor(cursor);
        expect(text.length).toBeLessThanOrEqual(1024);
        expect(decodeAuditCursor(text)).toEqual(cursor);
        expect(parseAuditQuery(`cursor=${text}&limit=7`, 50)).toEqual({ limit: 7, cursor });
      }),
    );
  });

  it('accepts a tampered cursor only when it is itself canonical (it then names another position)', () => {
    fc.assert(
      fc.property(cursorArb, fc.nat(), fc.constantFrom(...ALPHABET, '=', '+', '/', '.', '%'), (cursor, at, char) => {
        const text = encodeAuditCursor(cursor);
        const index = at % text.length;
        const tampered = `${text.slice(0, index)}${char}${text.slice(index + 1)}`;
        const decoded = decodeAuditCursor(tampered);
        if (decoded !== undefined) expect(encodeAuditCursor(decoded)).toBe(tampered);
      }),
    );
  });

  it('accepts exactly the canonical limits 1..100', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -5, max: 1005 }).map(String)), (value) => {
        const canonical = /^[1-9][0-9]{0,2}$/.test(value) && Number(value) <= 100;
        expect(parseAuditQuery(`limit=${value}`, 50)).toEqual(canonical ? { limit: Number(value) } : undefined);
      }),
    );
  });

  it.each(['01', '+5', '5.0', ' 5', '1e2', '0', '101', '', '%35'])('rejects limit=%p', (value) => {
    expect(parseAuditQuery(`limit=${value}`, 50)).toBeUndefined();
  });

  it.each(['limit=5&limit=5', 'limit=5&', '&', 'limit', 'cursor=', 'foo=1', 'limit=5&x=1', 'Limit=5'])(
    'rejects the query %p',
    (query) => {
      expect(parseAuditQuery(query, 50)).toBeUndefined();
    },
  );

  it('uses the default page size for an empty query', () => {
    expect(parseAuditQuery('', 25)).toEqual({ limit: 25 });
  });

  it('parses the export query: exactly one format, at most one cursor, in any order (property)', () => {
    fc.assert(
      fc.property(cursorArb, fc.constantFrom('ndjson', 'csv'), fc.boolean(), (cursor, format, cursorFirst) => {
        const text = encodeAuditCursor(cursor);
        const query = cursorFirst ? `cursor=${text}&format=${format}` : `format=${format}&cursor=${text}`;
        expect(parseAuditExportQuery(query)).toEqual({ format, cursor });
        expect(parseAuditExportQuery(`format=${format}`)).toEqual({ format });
      }),
    );
  });

  it.each([
    '',
    'format=',
    'format',
    'format=json',
    'format=CSV',
    'format=csv&format=csv',
    'format=csv&limit=5',
    'limit=5',
    'cursor=abc&format=csv',
    'format=csv&cursor=',
    'format=%63sv',
    'format=csv&',
  ])('rejects the export query %p', (query) => {
    expect(parseAuditExportQuery(query)).toBeUndefined();
  });
});
