const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * `true` for the exact loopback hosts `localhost`, `127.0.0.1` and `[::1]` (URL `hostname` form).
 *
 * @example
 * isLoopbackHost(new URL('http://127.0.0.1:3000').hostname); // true
 */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/**
 * Why an outbound URL was refused.
 *
 * @example
 * const reason: OutboundUrlRefusal = 'insecure_scheme';
 */
export type OutboundUrlRefusal = 'malformed' | 'insecure_scheme' | 'user_info' | 'fragment';

/**
 * Checks an outbound identity URL (`identity-model.md` §4): HTTPS only, except `http:` to an
 * exact loopback host; no user-info; no fragment. Returns the parsed URL or the refusal.
 *
 * @example
 * const checked = checkOutboundUrl('https://idp.example.com/jwks');
 * if (!checked.ok) throw new IdentityHttpClientError('url_refused', checked.reason);
 */
export function checkOutboundUrl(url: string): { ok: true; url: URL } | { ok: false; reason: OutboundUrlRefusal } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (parsed.username !== '' || parsed.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url)) {
    return { ok: false, reason: 'user_info' };
  }
  if (parsed.hash !== '' || url.includes('#')) return { ok: false, reason: 'fragment' };
  if (parsed.protocol === 'https:') return { ok: true, url: parsed };
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return { ok: true, url: parsed };
  return { ok: false, reason: 'insecure_scheme' };
}
