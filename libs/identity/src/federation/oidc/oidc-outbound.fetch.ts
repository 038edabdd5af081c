import type { CustomFetchOptions } from 'openid-client';
import type { IdentityHttpClient, IdentityHttpResponse } from '../../runtime/identity.runtime.js';
import { IdentityHttpClientError } from '../../runtime/node-http.client.js';
import { FederationProtocolError } from '../federation-protocol.error.js';

/**
 * Largest discovery, JWKS or token-endpoint answer read from a provider (real ones are a few KiB).
 *
 * @example
 * await httpClient.request({ method: 'GET', url, maxResponseBytes: OIDC_MAX_RESPONSE_BYTES });
 */
export const OIDC_MAX_RESPONSE_BYTES = 512 * 1024;

/** Per-request bound; openid-client's own abort signal is not forwarded (our client has its own). */
const OIDC_TIMEOUT_MS = 10_000;

/**
 * Sends one request through the identity HTTP client (never follows redirects, size and time
 * bounded) and maps transport failures: a refused URL is `configuration`, anything else
 * `unavailable`. A 5xx answer is `unavailable` as well, so that callers never parse it.
 *
 * @example
 * const response = await sendOidcRequest(httpClient, 'GET', jwksUri, { accept: 'application/json' }, undefined, 'jwks');
 */
export async function sendOidcRequest(
  httpClient: IdentityHttpClient,
  method: 'GET' | 'POST',
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string | Uint8Array | undefined,
  role: string,
): Promise<IdentityHttpResponse> {
  let response: IdentityHttpResponse;
  try {
    response = await httpClient.request({
      method,
      url,
      headers,
      ...(body === undefined ? {} : { body }),
      maxResponseBytes: OIDC_MAX_RESPONSE_BYTES,
      timeoutMs: OIDC_TIMEOUT_MS,
    });
  } catch (error) {
    if (error instanceof IdentityHttpClientError && error.code === 'url_refused') {
      throw new FederationProtocolError('configuration', `${role}_url_refused`);
    }
    if (error instanceof IdentityHttpClientError && error.code === 'response_too_large') {
      throw new FederationProtocolError('unavailable', `${role}_too_large`);
    }
    throw new FederationProtocolError('unavailable', `${role}_unreachable`);
  }
  if (response.status >= 500) throw new FederationProtocolError('unavailable', `${role}_server_error`);
  return response;
}

/**
 * A Fetch `Response` carrying an identity HTTP answer, for openid-client.
 *
 * @example
 * return toFetchResponse(await sendOidcRequest(...));
 */
export function toFetchResponse(response: IdentityHttpResponse, body: string | Uint8Array = response.body): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (name !== 'content-length' && name !== 'transfer-encoding') headers.set(name, value);
  }
  const nullBody = [101, 103, 204, 205, 304].includes(response.status);
  const payload = nullBody ? null : typeof body === 'string' ? body : new Uint8Array(body);
  return new Response(payload, { status: response.status, headers });
}

/**
 * Converts openid-client's fetch arguments into an identity HTTP request.
 *
 * @example
 * const { method, headers, body } = fromFetchOptions(options);
 */
export function fromFetchOptions(options: CustomFetchOptions): {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
} {
  const method = options.method.toUpperCase();
  if (method !== 'GET' && method !== 'POST') throw new FederationProtocolError('configuration', 'unexpected_method');
  const raw = options.body;
  let body: string | Uint8Array | undefined;
  if (raw === undefined || raw === null) body = undefined;
  else if (typeof raw === 'string') body = raw;
  else if (raw instanceof URLSearchParams) body = raw.toString();
  else if (raw instanceof Uint8Array) body = raw;
  else if (raw instanceof ArrayBuffer) body = new Uint8Array(raw);
  else throw new FederationProtocolError('configuration', 'unexpected_request_body');
  return { method, headers: { ...options.headers }, body };
}
