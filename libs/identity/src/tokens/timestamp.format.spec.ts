import { describe, expect, it } from '@jest/globals';
import { formatTimestamp } from './timestamp.format.js';

describe('formatTimestamp', () => {
  it('writes RFC 3339 UTC with Z and no fraction for whole seconds', () => {
    expect(formatTimestamp(new Date(Date.UTC(2026, 6, 14, 8, 15, 30)))).toBe('2026-07-14T08:15:30Z');
  });

  it('keeps the millisecond fraction when it is non-zero', () => {
    expect(formatTimestamp(new Date(Date.UTC(2026, 6, 14, 8, 15, 30, 5)))).toBe('2026-07-14T08:15:30.005Z');
    expect(formatTimestamp(new Date(Date.UTC(2026, 6, 14, 8, 15, 30, 120)))).toBe('2026-07-14T08:15:30.120Z');
  });

  it('converts other offsets to UTC', () => {
    expect(formatTimestamp(new Date('2026-07-14T10:15:30+02:00'))).toBe('2026-07-14T08:15:30Z');
  });

  it('refuses invalid dates and years RFC 3339 cannot express', () => {
    expect(() => formatTimestamp(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => formatTimestamp(new Date(Date.UTC(10000, 0, 1)))).toThrow(RangeError);
    expect(() => formatTimestamp(new Date(Date.UTC(-1, 0, 1)))).toThrow(RangeError);
  });
});
