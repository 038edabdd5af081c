/**
 * RFC 3339 UTC text of an instant with `Z`; the millisecond fraction only when non-zero
 * (`identity-http.md` §1). Throws `RangeError` for invalid dates and years outside 0000..9999.
 *
 * @example
 * formatTimestamp(new Date(Date.UTC(2026, 6, 14, 8, 15, 30))); // '2026-07-14T08:15:30Z'
 * formatTimestamp(new Date(Date.UTC(2026, 6, 14, 8, 15, 30, 120))); // '2026-07-14T08:15:30.120Z'
 */
export function formatTimestamp(instant: Date): string {
  const ms = instant.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('invalid date');
  const year = instant.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError('RFC 3339 timestamps cover the years 0000..9999 only');
  const iso = instant.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}
