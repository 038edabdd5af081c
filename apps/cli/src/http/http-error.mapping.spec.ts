import { describe, expect, it } from '@jest/globals';
import { CliError, ExitCode } from '../cli.errors.js';
import { failureOf, retryAfterSeconds } from './http-error.mapping.js';
import { HttpClient, type HttpResult } from './http.client.js';

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResult => ({
  status,
  headers: new Headers(headers),
  body,
  requestId: 'req-1',
});
const oauth = (error: string) => ({ error, error_description: 'fixed text' });

describe('failureOf', () => {
  it.each([
    ['access_denied', 'The login was denied in the browser.'],
    ['expired_token', 'The code expired before it was approved. Run `tessera login` again.'],
    ['invalid_grant', 'The server no longer accepts this login (revoked or expired).'],
    ['invalid_scope', 'The server does not allow the requested scope.'],
    ['invalid_request', 'The server rejected the request as malformed.'],
    ['unsupported_grant_type', 'The server does not support this grant type.'],
    ['something_new', 'The server refused the request (something_new).'],
  ])('maps the RFC 6749 error %s to one line and exit 1', (error, message) => {
    expect(failureOf(answer(400, oauth(error)))).toEqual(new CliError(message, ExitCode.failure, 'req-1'));
  });

  it('maps a 429 to exit 3 with the Retry-After seconds, in either envelope', () => {
    const oauthLimited = failureOf(answer(429, oauth('rate_limited'), { 'retry-after': '42' }));
    expect({ message: oauthLimited.message, exitCode: oauthLimited.exitCode }).toEqual({
      message: 'The server is rate limiting requests; retry in 42 s.',
      exitCode: ExitCode.unavailable,
    });
    const identityLimited = failureOf(answer(429, { error: { code: 'rate_limited' } }));
    expect(identityLimited.message).toBe('The server is rate limiting requests; retry later.');
  });

  it('maps 503 and other 5xx answers to exit 3', () => {
    expect(failureOf(answer(503, oauth('temporarily_unavailable')))).toMatchObject({
      message: 'The server is temporarily unavailable; retry later.',
      exitCode: ExitCode.unavailable,
      requestId: 'req-1',
    });
    expect(failureOf(answer(500, oauth('server_error')))).toMatchObject({
      message: 'The server could not complete the request (HTTP 500).',
      exitCode: ExitCode.unavailable,
    });
  });

  it('maps identity envelopes and unknown bodies to exit 1', () => {
    expect(failureOf(answer(401, { error: { code: 'authentication_required' } })).message).toBe(
      'The server no longer accepts this login.',
    );
    expect(failureOf(answer(404, { error: { code: 'not_found' } })).message).toBe(
      'The server refused the request (not_found).',
    );
    expect(failureOf(answer(418, undefined))).toMatchObject({
      message: 'Unexpected answer from the server (HTTP 418).',
      exitCode: ExitCode.failure,
    });
  });
});

describe('retryAfterSeconds', () => {
  it('reads delta-seconds and HTTP dates, at least 1 s, and ignores garbage', () => {
    const now = Date.parse('2026-07-14T08:00:00Z');
    expect(retryAfterSeconds('0', now)).toBe(1);
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Tue, 14 Jul 2026 08:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});

describe('HttpClient failures', () => {
  it('turns a refused connection into one line naming the server, exit 3', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const http = new HttpClient('https://id.example.com', { fetch: () => Promise.reject(refused) });
    await expect(http.get('/identity/v1/me', 'token')).rejects.toEqual(
      new CliError('Could not reach https://id.example.com (ECONNREFUSED).', ExitCode.unavailable),
    );
  });

  it('bounds every request with a timeout signal and reports the timeout in seconds', async () => {
    let signal: AbortSignal | undefined;
    const http = new HttpClient('https://id.example.com', {
      timeoutMs: 20,
      fetch: (_url, init) => {
        signal = init?.signal ?? undefined;
        return new Promise((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
        );
      },
    });
    await expect(http.postForm('/oauth/token', { grant_type: 'refresh_token' })).rejects.toEqual(
      new CliError('https://id.example.com did not answer within 1 s.', ExitCode.unavailable),
    );
    expect(signal?.aborted).toBe(true);
  });

  it('logs method, path, status and X-Request-ID with verbose, and sends forms url-encoded', async () => {
    const lines: string[] = [];
    let sent: RequestInit | undefined;
    const http = new HttpClient('https://id.example.com', {
      verbose: true,
      log: (line) => lines.push(line),
      fetch: async (_url, init) => {
        sent = init;
        return new Response('{"error":"slow_down"}', { status: 400, headers: { 'x-request-id': 'req-7' } });
      },
    });
    const result = await http.postForm('/oauth/token', { scope: 'a b' });
    expect(result).toMatchObject({ status: 400, body: { error: 'slow_down' }, requestId: 'req-7' });
    expect(sent?.body).toBe('scope=a+b');
    expect((sent?.headers as Record<string, string>)['content-type']).toBe('application/x-www-form-urlencoded');
    expect(lines).toEqual(['POST /oauth/token → 400 (request id req-7)']);
  });
});
