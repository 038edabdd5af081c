import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHttpClient, IdentityHttpClientError } from './node-http.client.js';
import { checkOutboundUrl, isLoopbackHost } from './outbound-url.policy.js';

let server: http.Server;
let base: string;
const received: { method?: string; body?: string; headers?: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method, body: Buffer.concat(chunks).toString(), headers: req.headers });
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      } else if (req.url === '/big') {
        res.writeHead(200).end(Buffer.alloc(4096, 'x'));
      } else if (req.url === '/stream') {
        res.writeHead(200);
        res.write(Buffer.alloc(3000, 'y'));
        res.end(Buffer.alloc(3000, 'y'));
      } else if (req.url === '/headers') {
        const headers: [string, string][] = Array.from({ length: 130 }, (_, i) => [`x-h${i}`, 'v']);
        res.writeHead(200, headers.flat()).end('ok');
      } else if (req.url === '/slow') {
        setTimeout(() => res.writeHead(200).end('late'), 500);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const client = createNodeHttpClient();

describe('outbound URL policy', () => {
  it('allows HTTPS anywhere and plain HTTP only to exact loopback hosts', () => {
    expect(checkOutboundUrl('https://idp.example.com/jwks').ok).toBe(true);
    expect(checkOutboundUrl('http://127.0.0.1:8080/x').ok).toBe(true);
    expect(checkOutboundUrl('http://localhost/x').ok).toBe(true);
    expect(checkOutboundUrl('http://[::1]/x').ok).toBe(true);
    expect(checkOutboundUrl('http://idp.example.com/')).toEqual({ ok: false, reason: 'insecure_scheme' });
    expect(checkOutboundUrl('http://127.0.0.2/')).toEqual({ ok: false, reason: 'insecure_scheme' });
    expect(checkOutboundUrl('http://localhost.example.com/')).toEqual({ ok: false, reason: 'insecure_scheme' });
    expect(checkOutboundUrl('file:///etc/passwd')).toEqual({ ok: false, reason: 'insecure_scheme' });
  });

  it('refuses user-info, fragments and malformed URLs', () => {
    expect(checkOutboundUrl('https://user:pw@idp.example.com/')).toEqual({ ok: false, reason: 'user_info' });
    expect(checkOutboundUrl('https://@idp.example.com/')).toEqual({ ok: false, reason: 'user_info' });
    expect(checkOutboundUrl('https://idp.example.com/#frag')).toEqual({ ok: false, reason: 'fragment' });
    expect(checkOutboundUrl('not a url')).toEqual({ ok: false, reason: 'malformed' });
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
  });
});

describe('node HTTP client', () => {
  it('declares that it never follows redirects and passes its self-test offline', () => {
    expect(client.followsRedirects).toBe(false);
    expect(client.selfTest()).toBe(true);
  });

  it('sends a request and returns status, lower-case headers and body', async () => {
    const response = await client.request({
      method: 'POST',
      url: `${base}/token`,
      body: 'a=b',
      headers: { 'X-Test': '1' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.body.toString()).toBe('{"ok":true}');
    const last = received.at(-1)!;
    expect(last.method).toBe('POST');
    expect(last.body).toBe('a=b');
    expect(last.headers?.['x-test']).toBe('1');
  });

  it('returns a redirect as is instead of following it', async () => {
    const response = await client.request({ method: 'GET', url: `${base}/redirect` });
    expect(response.status).toBe(302);
    expect(response.headers['location']).toBe('http://127.0.0.1:1/elsewhere');
  });

  it('refuses non-HTTPS and user-info URLs before any network request', async () => {
    const before = received.length;
    await expect(client.request({ method: 'GET', url: 'http://example.com/' })).rejects.toMatchObject({
      code: 'url_refused',
    });
    await expect(client.request({ method: 'GET', url: base.replace('//', '//u:p@') })).rejects.toMatchObject({
      code: 'url_refused',
    });
    expect(received.length).toBe(before);
  });

  it('enforces the response size bound from Content-Length and while streaming', async () => {
    await expect(client.request({ method: 'GET', url: `${base}/big`, maxResponseBytes: 1024 })).rejects.toMatchObject({
      code: 'response_too_large',
    });
    await expect(
      client.request({ method: 'GET', url: `${base}/stream`, maxResponseBytes: 5000 }),
    ).rejects.toMatchObject({
      code: 'response_too_large',
    });
    const ok = await client.request({ method: 'GET', url: `${base}/big`, maxResponseBytes: 4096 });
    expect(ok.body).toHaveLength(4096);
    await expect(
      client.request({ method: 'GET', url: `${base}/big`, maxResponseBytes: 17 * 1024 * 1024 }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('refuses more than 128 headers in either direction and request bodies over 16 MiB', async () => {
    await expect(client.request({ method: 'GET', url: `${base}/headers` })).rejects.toMatchObject({
      code: 'too_many_headers',
    });
    const headers = Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`x-h${i}`, 'v']));
    await expect(client.request({ method: 'GET', url: `${base}/`, headers })).rejects.toMatchObject({
      code: 'too_many_headers',
    });
    const body = new Uint8Array(16 * 1024 * 1024 + 1);
    await expect(client.request({ method: 'POST', url: `${base}/`, body })).rejects.toMatchObject({
      code: 'request_too_large',
    });
  });

  it('times out and reports network failures as typed errors', async () => {
    await expect(client.request({ method: 'GET', url: `${base}/slow`, timeoutMs: 50 })).rejects.toMatchObject({
      code: 'timeout',
    });
    const error = await client.request({ method: 'GET', url: 'http://127.0.0.1:1/' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdentityHttpClientError);
    expect((error as IdentityHttpClientError).code).toBe('network');
  });

  it('fails its self-test when TLS verification is switched off process-wide', () => {
    const previous = process.env['NODE_TLS_REJECT_UNAUTHORIZED'];
    process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
    try {
      expect(client.selfTest()).toBe(false);
    } finally {
      if (previous === undefined) delete process.env['NODE_TLS_REJECT_UNAUTHORIZED'];
      else process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = previous;
    }
  });
});
