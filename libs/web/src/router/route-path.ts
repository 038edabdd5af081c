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

/** A parsed segment of a route pattern. */
export type RouteSegment =
  | { readonly kind: 'static'; readonly label: string }
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
}

const STATIC_SEGMENT = /^[A-Za-z0-9\-._~!$&'()+,;=:@]+$/;
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
    if (!STATIC_SEGMENT.test(text)) throw new RouteRegistrationError(`Invalid static segment '${text}' in ${where}`);
    segments.push({ kind: 'static', label: text });
  });
  // In strict mode a trailing slash is a route segment of its own: an empty static label.
  if (trailingSlash) segments.push({ kind: 'static', label: '' });
  const shape = segments.map((s) => (s.kind === 'static' ? s.label : s.kind === 'param' ? ':' : '*')).join('/');
  const isStatic = paramNames.length === 0 && !hasWildcard;
  return {
    display,
    segments,
    paramNames,
    hasWildcard,
    shape,
    staticKey: isStatic ? `/${segments.map((s) => (s as { label: string }).label).join('/')}` : null,
  };
}
