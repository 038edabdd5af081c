/**
 * Percent-decodes captured values as UTF-8 (`decodeURIComponent` semantics, `+` stays `+`).
 * Returns `null` on a malformed escape or invalid UTF-8, which the router answers with 400.
 * Values without `%` are returned as they are, so the common case copies nothing.
 */
export function decodeParams(raw: Record<string, string>): Record<string, string> | null {
  for (const name in raw) {
    const value = raw[name]!;
    if (value.indexOf('%') === -1) continue;
    try {
      raw[name] = decodeURIComponent(value);
    } catch {
      return null;
    }
  }
  return raw;
}
