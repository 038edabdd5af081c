import { CliError, ExitCode } from '../cli.errors.js';

/** One answered request: status, headers, the JSON body (`undefined` when empty or not JSON), request id. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly requestId: string | undefined;
}

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  /** Bound of every request, connection to last byte. @default 15000 */
  readonly timeoutMs?: number;
  /** With `--verbose`: one line per request (method, path, status, `X-Request-ID`) on `log`. */
  readonly verbose?: boolean;
  readonly log?: (line: string) => void;
  /** The `fetch` to use (tests). @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** The default bound of one request. */
export const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * The CLI's HTTP client for one server: form POSTs to the OAuth endpoints and bearer GETs to the
 * identity routes, each bounded by `AbortSignal.timeout`. A network failure or timeout becomes a
 * one-line {@link CliError} with exit code 3; HTTP error statuses are returned for the caller to map.
 *
 * @example
 * const http = new HttpClient('https://id.example.com', { verbose: true, log: console.error });
 * const me = await http.get('/identity/v1/me', accessToken);
 */
export class HttpClient {
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(
    readonly server: string,
    private readonly options: HttpClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** POSTs `form` as `application/x-www-form-urlencoded`. */
  postForm(path: string, form: Record<string, string>): Promise<HttpResult> {
    return this.send('POST', path, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** POSTs `body` as JSON (the identity routes). */
  postJson(path: string, body: unknown): Promise<HttpResult> {
    return this.send('POST', path, {
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /** GETs `path` with `Authorization: Bearer <accessToken>`. */
  get(path: string, accessToken: string): Promise<HttpResult> {
    return this.send('GET', path, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
  }

  private async send(method: string, path: string, init: { headers: Record<string, string>; body?: string }) {
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(`${this.server}${path}`, {
        method,
        ...init,
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw this.networkError(error);
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (this.options.verbose)
      this.options.log?.(`${method} ${path} → ${response.status} (request id ${requestId ?? 'none'})`);
    return { status: response.status, headers: response.headers, body: parseJson(text), requestId };
  }

  private networkError(error: unknown): CliError {
    const name = (error as { name?: string } | undefined)?.name;
    if (name === 'TimeoutError' || name === 'AbortError')
      return new CliError(
        `${this.server} did not answer within ${Math.ceil(this.timeoutMs / 1000)} s.`,
        ExitCode.unavailable,
      );
    return new CliError(`Could not reach ${this.server} (${networkReason(error)}).`, ExitCode.unavailable);
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The most specific reason of a fetch failure: undici wraps the socket error (`ECONNREFUSED`) in `cause`. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string' && cause.message !== '') return cause.message;
  return error instanceof Error ? error.message : 'network error';
}
