import { isIP } from 'node:net';
import { isLoopbackHost } from '../runtime/outbound-url.policy.js';
import type { ResolvedIdentityConfig } from './identity.config.js';
import { fail, HTTP_TOKEN, isHardened, oneOf, string } from './identity-config.rules.js';

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const COOKIE_PATH = /^\/[\x21-\x3a\x3c-\x7e]*$/;

/**
 * `hostname` equals `domain` or is a subdomain of it.
 *
 * @example
 * isHostUnder('id.example.com', 'example.com'); // true; isHostUnder('notexample.com', 'example.com') is false
 */
export function isHostUnder(hostname: string, domain: string): boolean {
  return hostname === domain || hostname.endsWith(`.${domain}`);
}

/**
 * RP ID, origins and `publicBaseUrl`: exact origins; HTTPS except loopback in development/test;
 * staging/production HTTPS with non-loopback hosts and RP ID; `publicBaseUrl` ∈ `allowedOrigins`;
 * every origin host equal to or under the RP ID.
 *
 * @example
 * validateOrigins(resolveIdentityConfig({ ...input, allowedOrigins: ['https://example.com/'] })); // throws origin_not_exact
 */
export function validateOrigins(config: ResolvedIdentityConfig): void {
  const hardened = isHardened(config.environment);
  const rpId = string('rp_invalid', 'rp.id', config.rp.id);
  if (!HOSTNAME.test(rpId) || isIP(rpId) !== 0) {
    fail('rp_invalid', `rp.id must be a lowercase domain name without scheme, port or path (e.g. "example.com")`);
  }
  if (hardened && (isLoopbackHost(rpId) || !rpId.includes('.'))) {
    fail(
      'rp_invalid',
      `rp.id must be a registrable domain in ${config.environment}, not a loopback or single-label name`,
    );
  }
  const rpName = string('rp_invalid', 'rp.name', config.rp.name);
  if ([...rpName.trim()].length < 1 || [...rpName].length > 200 || hasControlCharacter(rpName)) {
    fail('rp_invalid', 'rp.name must be 1..200 characters without control characters');
  }
  string('public_base_url', 'publicBaseUrl', config.publicBaseUrl);
  if (!Array.isArray(config.allowedOrigins) || config.allowedOrigins.length === 0) {
    fail('origin_not_exact', 'allowedOrigins must list at least one origin (e.g. ["https://example.com"])');
  }
  const seen = new Set<string>();
  config.allowedOrigins.forEach((origin, index) => {
    const path = `allowedOrigins[${index}]`;
    checkOrigin(config, path, origin);
    if (seen.has(origin)) fail('origin_not_exact', `${path} is listed twice`);
    seen.add(origin);
  });
  checkOrigin(config, 'publicBaseUrl', config.publicBaseUrl);
  if (!seen.has(config.publicBaseUrl)) {
    fail('public_base_url', `publicBaseUrl must also be listed in allowedOrigins`);
  }
}

function checkOrigin(config: ResolvedIdentityConfig, path: string, value: unknown): void {
  const origin = string('origin_not_exact', path, value);
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== origin) {
    const suggestion = url !== undefined && url.origin !== 'null' ? ' (keep only the scheme, host and port)' : '';
    fail(
      'origin_not_exact',
      `${path} must be an exact origin scheme://host[:port] in lowercase, without path, query, trailing slash or default port${suggestion}`,
    );
  }
  const loopback = isLoopbackHost(url.hostname);
  if (isHardened(config.environment)) {
    if (url.protocol !== 'https:' || loopback) {
      fail('origin_insecure', `${path} must use https:// and a non-loopback host in ${config.environment}`);
    }
  } else if (url.protocol === 'http:' && !loopback) {
    fail(
      'origin_insecure',
      `${path} must use https://; plain http:// is allowed only for localhost, 127.0.0.1 or [::1] in development/test`,
    );
  }
  if (!isHostUnder(url.hostname, config.rp.id)) {
    fail('origin_outside_rp_id', `${path} must have a host equal to or under rp.id`);
  }
}

/**
 * Session-cookie rules of `identity-http.md` §9.1.
 *
 * @example
 * validateSessionCookie(resolveIdentityConfig({ ...input, sessionCookie: { secure: false } })); // throws: __Host- needs Secure
 */
export function validateSessionCookie(config: ResolvedIdentityConfig): void {
  const cookie = config.sessionCookie;
  const name = string('session_cookie', 'sessionCookie.name', cookie.name);
  if (!HTTP_TOKEN.test(name))
    fail('session_cookie', `sessionCookie.name must be an HTTP token (letters, digits and !#$%&'*+.^_\`|~-)`);
  if (typeof cookie.secure !== 'boolean') fail('session_cookie', 'sessionCookie.secure must be a boolean');
  if (cookie.httpOnly !== true) fail('session_cookie', 'sessionCookie.httpOnly cannot be disabled; remove the option');
  const sameSite = oneOf('session_cookie', 'sessionCookie.sameSite', cookie.sameSite, [
    'strict',
    'lax',
    'none',
  ] as const);
  const path = string('session_cookie', 'sessionCookie.path', cookie.path);
  if (!COOKIE_PATH.test(path))
    fail('session_cookie', `sessionCookie.path must start with "/" and contain no spaces, controls or ";"`);
  const lower = name.toLowerCase();
  if (lower.startsWith('__host-')) {
    if (!cookie.secure)
      fail('session_cookie', `sessionCookie.name uses the __Host- prefix, which requires secure: true`);
    if (cookie.domain !== undefined)
      fail(
        'session_cookie',
        `sessionCookie.name uses the __Host- prefix, which forbids a domain; remove sessionCookie.domain or use the __Secure- prefix`,
      );
    if (path !== '/') fail('session_cookie', `sessionCookie.name uses the __Host- prefix, which requires path "/"`);
  }
  if (lower.startsWith('__secure-') && !cookie.secure) {
    fail('session_cookie', `sessionCookie.name uses the __Secure- prefix, which requires secure: true`);
  }
  if (sameSite === 'none' && !cookie.secure)
    fail('session_cookie', 'sessionCookie.sameSite "none" requires secure: true');
  if (isHardened(config.environment) && !cookie.secure) {
    fail('session_cookie', `sessionCookie.secure must be true in ${config.environment}`);
  }
  if (cookie.domain !== undefined) {
    const domain = string('session_cookie', 'sessionCookie.domain', cookie.domain).replace(/^\./, '');
    if (!HOSTNAME.test(domain) || !isHostUnder(domain, config.rp.id)) {
      fail('session_cookie', `sessionCookie.domain must be rp.id or a subdomain of it`);
    }
    const host = new URL(config.publicBaseUrl).hostname;
    if (!isHostUnder(host, domain)) {
      fail('session_cookie', `sessionCookie.domain does not cover the publicBaseUrl host`);
    }
  }
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
