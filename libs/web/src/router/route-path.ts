/**
 * Route path grammar (web-and-viewset §3.2) and registration errors (§3.3).
 * Parsing happens once per registration; nothing here runs per request.
 */

/** The seven methods a router accepts, in the order used by `Allow` (§4.2). */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** One of the seven methods a {@link Router} registers routes for. */
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A route definition that breaks the path grammar or conflicts with another route; thrown synchronously by the DSL. */
export class RouteRegistrationError extends Error {
  override name = 'RouteRegistrationError';
}

/**
 * A parsed segment of a route pattern. A static label with characters outside RFC 3986's `pchar`
 * (quotes, backslashes, braces, non-ASCII) also has its percent-encoded UTF-8 form (`encoded`,
 * upper-case hex, as clients send it); both forms match.
 */
export type RouteSegment =
  | { readonly kind: 'static'; readonly label: string; readonly encoded?: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'wildcard' };

/** A route pattern after validation: what the tree stores. */
export interface ParsedRoutePath {
  /** The pattern as written, with a leading `/` (used in messages). */
  readonly display: string;
  readonly segments: readonly RouteSegment[];
  readonly paramNames: readonly string[];
  readonly hasWildcard: boolean;
  /** Shape key: parameter names erased, so `/a/:x` and `/a/:y` collide. */
  readonly shape: string;
  /** Normalised path of a fully static route (the key of the static table), else `null`. */
  readonly staticKey: string | null;
  /** The same path with every static label percent-encoded, when that differs from `staticKey`. */
  readonly encodedStaticKey: string | null;
}

/** RFC 3986 `pchar` without `%`: kept as is in a label's encoded form. */
const PCHAR = /^[A-Za-z0-9\-._~!$&'()+,;=:@]$/;
/** Characters a static segment never holds besides the space and ASCII controls. */
const RESERVED = new Set(['/', '%', '*', '?', '#']);

/**
 * A static segment (issue 16 widens web-and-viewset §3.2): any characters but `/`, `%`, `*`, `?`,
 * `#`, the space and ASCII controls; non-ASCII allowed (well-formed UTF-16 only).
 */
function isStaticLabel(text: string): boolean {
  if (text === '' || LONE_SURROGATE.test(text)) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f || RESERVED.has(text[i]!)) return false;
  }
  return true;
}
const LONE_SURROGATE = /[\ud800-\udfff]/u;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Upper-cases and checks a method name; any of the seven is accepted. */
export function normaliseMethod(method: string): HttpMethod {
  const upper = method.toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(upper)) {
    throw new RouteRegistrationError(`Unsupported method: ${method}`);
  }
  return upper as HttpMethod;
}

/** Validates and parses a route pattern for `method` (already normalised). */
export function parseRoutePath(method: HttpMethod, path: string, strictTrailingSlash: boolean): ParsedRoutePath {
  const display = path.startsWith('/') ? path : `/${path}`;
  const where = `${method} ${display}`;
  let body = display.slice(1);
  let trailingSlash = false;
  if (body.endsWith('/')) {
    body = body.slice(0, -1);
    trailingSlash = strictTrailingSlash;
  }
  const raw = body === '' ? [] : body.split('/');
  const segments: RouteSegment[] = [];
  const paramNames: string[] = [];
  let hasWildcard = false;
  raw.forEach((text, index) => {
    if (text === '') throw new RouteRegistrationError(`Empty segment in ${where}`);
    if (text === '*') {
      if (index !== raw.length - 1 || trailingSlash) {
        throw new RouteRegistrationError(`Wildcard must be the last segment: ${where}`);
      }
      hasWildcard = true;
      segments.push({ kind: 'wildcard' });
      return;
    }
    if (text.includes('*')) throw new RouteRegistrationError(`Invalid wildcard segment '${text}' in ${where}`);
    if (text.startsWith(':')) {
      const name = text.slice(1);
      if (!PARAM_NAME.test(name)) throw new RouteRegistrationError(`Invalid parameter name '${text}' in ${where}`);
      if (paramNames.includes(name)) {
        throw new RouteRegistrationError(`Duplicate parameter name '${text}' in ${where}`);
      }
      paramNames.push(name);
      segments.push({ kind: 'param', name });
      return;
    }
    if (!isStaticLabel(text)) throw new RouteRegistrationError(`Invalid static segment '${text}' in ${where}`);
    const encoded = encodeLabel(text);
    segments.push(encoded === text ? { kind: 'static', label: text } : { kind: 'static', label: text, encoded });
  });
  // In strict mode a trailing slash is a route segment of its own: an empty static label.
  if (trailingSlash) segments.push({ kind: 'static', label: '' });
  const shape = segments.map((s) => (s.kind === 'static' ? s.label : s.kind === 'param' ? ':' : '*')).join('/');
  const isStatic = paramNames.length === 0 && !hasWildcard;
  const labels = segments as readonly { label: string; encoded?: string }[];
  const staticKey = isStatic ? `/${labels.map((s) => s.label).join('/')}` : null;
  const encodedStaticKey = isStatic ? `/${labels.map((s) => s.encoded ?? s.label).join('/')}` : null;
  return {
    display,
    segments,
    paramNames,
    hasWildcard,
    shape,
    staticKey,
    encodedStaticKey: encodedStaticKey === staticKey ? null : encodedStaticKey,
  };
}

/** `label` with every character outside `pchar` percent-encoded as UTF-8 (upper-case hex). */
function encodeLabel(label: string): string {
  let out = '';
  for (const char of label) out += PCHAR.test(char) ? char : encodeURIComponent(char);
  return out;
}
