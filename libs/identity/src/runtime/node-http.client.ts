import http from 'node:http';
import https from 'node:https';
import type { IdentityHttpClient, IdentityHttpRequest, IdentityHttpResponse } from './identity.runtime.js';
import { checkOutboundUrl } from './outbound-url.policy.js';

/**
 * Outbound limits of `identity-model.md` §4.
 *
 * @example
 * OUTBOUND_HTTP_LIMITS.maxHeaders; // 128
 */
export const OUTBOUND_HTTP_LIMITS = Object.freeze({
  maxHeaders: 128,
  maxRequestBytes: 16 * 1024 * 1024,
  maxResponseBytes: 16 * 1024 * 1024,
  defaultResponseBytes: 4 * 1024 * 1024,
  defaultTimeoutMs: 10_000,
});

/**
 * Stable codes of {@link IdentityHttpClientError}.
 *
 * @example
 * if (error.code === 'response_too_large') ...
 */
export type IdentityHttpClientErrorCode =
  | 'url_refused'
  | 'invalid_request'
  | 'request_too_large'
  | 'too_many_headers'
  | 'response_too_large'
  | 'timeout'
  | 'network';

/**
 * An outbound request failed or was refused by policy; the caller maps it to its own error.
 *
 * @example
 * catch (error) { if (error instanceof IdentityHttpClientError) throw new IdentityError('service_unavailable', { cause: error }); }
 */
export class IdentityHttpClientError extends Error {
  override name = 'IdentityHttpClientError';

  constructor(
    readonly code: IdentityHttpClientErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Options of {@link createNodeHttpClient}.
 *
 * @example
 * createNodeHttpClient({ defaultResponseBytes: 1024 * 1024 });
 */
export interface NodeHttpClientOptions {
  /** @default 4 MiB; at most 16 MiB */
  defaultResponseBytes?: number;
  /** @default 10 000 */
  defaultTimeoutMs?: number;
}

/**
 * The default outbound client on `node:http`/`node:https`: HTTPS only (plain HTTP to exact
 * loopback), no user-info, never follows redirects (3xx are returned), ≤ 128 headers each way,
 * request ≤ 16 MiB, response ≤ the per-request bound (default 4 MiB, max 16 MiB), overall timeout.
 *
 * @example
 * const client = createNodeHttpClient();
 * const res = await client.request({ method: 'GET', url: 'https://idp.example.com/.well-known/openid-configuration' });
 */
export function createNodeHttpClient(options: NodeHttpClientOptions = {}): IdentityHttpClient {
  const defaultResponseBytes = Math.min(
    options.defaultResponseBytes ?? OUTBOUND_HTTP_LIMITS.defaultResponseBytes,
    OUTBOUND_HTTP_LIMITS.maxResponseBytes,
  );
  const defaultTimeoutMs = options.defaultTimeoutMs ?? OUTBOUND_HTTP_LIMITS.defaultTimeoutMs;
  return {
    followsRedirects: false,
    selfTest: nodeHttpClientSelfTest,
    request: (request) => send(request, defaultResponseBytes, defaultTimeoutMs),
  };
}

/** Policy self-test without any network request (`identity-model.md` §10, check 2). */
function nodeHttpClientSelfTest(): boolean {
  const refused = [
    'http://example.com/',
    'https://user:pass@example.com/',
    'ftp://example.com/',
    'https://example.com/#x',
  ];
  const allowed = ['https://example.com/', 'http://127.0.0.1:8080/', 'http://[::1]/', 'http://localhost/'];
  if (refused.some((url) => checkOutboundUrl(url).ok) || !allowed.every((url) => checkOutboundUrl(url).ok))
    return false;
  // TLS verification must not have been switched off process-wide.
  if (process.env['NODE_TLS_REJECT_UNAUTHORIZED'] === '0') return false;
  return (https.globalAgent.options as { rejectUnauthorized?: boolean }).rejectUnauthorized !== false;
}

async function send(
  request: IdentityHttpRequest,
  defaultResponseBytes: number,
  defaultTimeoutMs: number,
): Promise<IdentityHttpResponse> {
  const checked = checkOutboundUrl(request.url);
  if (!checked.ok) throw new IdentityHttpClientError('url_refused', `outbound URL refused: ${checked.reason}`);
  const maxResponseBytes = request.maxResponseBytes ?? defaultResponseBytes;
  if (
    !Number.isSafeInteger(maxResponseBytes) ||
    maxResponseBytes < 0 ||
    maxResponseBytes > OUTBOUND_HTTP_LIMITS.maxResponseBytes
  ) {
    throw new IdentityHttpClientError('invalid_request', 'maxResponseBytes must be 0..16 MiB');
  }
  const body =
    request.body === undefined
      ? undefined
      : typeof request.body === 'string'
        ? Buffer.from(request.body, 'utf8')
        : Buffer.from(request.body);
  if (body !== undefined && body.byteLength > OUTBOUND_HTTP_LIMITS.maxRequestBytes) {
    throw new IdentityHttpClientError('request_too_large', 'outbound request body exceeds 16 MiB');
  }
  const headers: Record<string, string> = { ...(request.headers ?? {}) };
  if (body !== undefined) headers['content-length'] = String(body.byteLength);
  if (Object.keys(headers).length > OUTBOUND_HTTP_LIMITS.maxHeaders) {
    throw new IdentityHttpClientError('too_many_headers', 'outbound request has more than 128 headers');
  }
  const url = checked.url;
  const transport = url.protocol === 'https:' ? https : http;
  const timeoutMs = request.timeoutMs ?? defaultTimeoutMs;

  return new Promise<IdentityHttpResponse>((resolve, reject) => {
    let settled = false;
    const fail = (error: IdentityHttpClientError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    let req: http.ClientRequest;
    try {
      req = transport.request(url, { method: request.method, headers, agent: false });
    } catch (error) {
      throw new IdentityHttpClientError('invalid_request', 'outbound request rejected by the HTTP stack', {
        cause: error,
      });
    }
    // One more than the limit so that an overflow is visible rather than silently truncated.
    req.maxHeadersCount = OUTBOUND_HTTP_LIMITS.maxHeaders + 1;
    const timer = setTimeout(
      () => fail(new IdentityHttpClientError('timeout', `outbound request exceeded ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('error', (error) =>
      fail(new IdentityHttpClientError('network', 'outbound request failed', { cause: error })),
    );
    req.on('response', (res) => {
      if (res.rawHeaders.length / 2 > OUTBOUND_HTTP_LIMITS.maxHeaders) {
        fail(new IdentityHttpClientError('too_many_headers', 'outbound response has more than 128 headers'));
        return;
      }
      const declared = Number(res.headers['content-length'] ?? '0');
      if (declared > maxResponseBytes) {
        fail(new IdentityHttpClientError('response_too_large', `outbound response exceeds ${maxResponseBytes} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > maxResponseBytes) {
          fail(
            new IdentityHttpClientError('response_too_large', `outbound response exceeds ${maxResponseBytes} bytes`),
          );
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (error) =>
        fail(new IdentityHttpClientError('network', 'outbound response failed', { cause: error })),
      );
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const responseHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: Buffer.concat(chunks, size) });
      });
    });
    req.end(body);
  });
}
