/**
 * Headers of every demo page: never cached (they reflect sign-in state), a CSP that allows only
 * same-origin scripts, styles and fetches (no inline code at all), no MIME sniffing, and no
 * `Referer` (the enrolment page's URL fragment carries an invitation token; browsers never send
 * fragments, and no-referrer keeps even the path from leaving).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** Headers of the content-hashed page assets: a new build gets new names, so they cache forever. */
export const ASSET_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};
