/**
 * How a device login ended, as a terminal shows it: exit code 0 when the client got tokens, 1 when
 * it was refused (denied, expired), and what the client said about it.
 */
export interface DeviceLoginOutcome {
  readonly exitCode: number;
  readonly message: string;
}

/** A device login in progress: what the user types on `/device`, and the client's end of it. */
export interface DeviceLogin {
  readonly userCode: string;
  readonly verificationUri: string;
  /** Settles when the client stops polling: approved, denied, expired or failed. */
  readonly finished: Promise<DeviceLoginOutcome>;
}

/** What the logged-in client knows about itself: the user, its organization and its scopes. */
export interface DeviceIdentity {
  readonly userId: string;
  readonly displayName: string;
  readonly organizationIds: readonly string[];
  readonly scopes: readonly string[];
}

/**
 * The journey's "terminal": starts an RFC 8628 login and reports who it is once logged in. One
 * interface, so the journey reads the same whether the client is plain HTTP or the `tessera` CLI.
 */
export interface DeviceClient {
  start(scopes: readonly string[]): Promise<DeviceLogin>;
  whoami(): Promise<DeviceIdentity>;
  /** Stops whatever still polls (a journey that failed half-way leaves nothing running). */
  close(): Promise<void>;
}

/** The CLI's default OAuth client id (the demo accepts any public client id). */
export const CLI_CLIENT_ID = 'tessera-cli';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** Every request to the demo is bounded. */
const REQUEST_TIMEOUT_MS = 10_000;

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  expires_in: number;
  interval: number;
}

interface TokenAnswer {
  access_token?: string;
  scope?: string;
  error?: string;
  error_description?: string;
}

async function postForm<T>(
  url: string,
  form: Record<string, string>,
  stop: AbortSignal,
): Promise<{ status: number; body: T }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.any([stop, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Waits `ms`, or rejects as soon as `stop` aborts. */
function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    stop.addEventListener('abort', () => (clearTimeout(timer), reject(stop.reason)), { once: true });
  });
}

/**
 * A device client over plain HTTP, as RFC 8628 describes it: `POST /oauth/device_authorization`,
 * then `POST /oauth/token` every `interval` seconds (five more after each `slow_down`) until the
 * user decides or the code expires. Tokens stay inside the object; nothing prints them.
 *
 * @example
 * const login = await new HttpDeviceClient(origin).start(['identity.profile']);
 */
export class HttpDeviceClient implements DeviceClient {
  private accessToken: string | undefined;
  private scopes: readonly string[] = [];
  private readonly stopped = new AbortController();

  constructor(
    private readonly origin: string,
    private readonly clientId = CLI_CLIENT_ID,
  ) {}

  async start(scopes: readonly string[]): Promise<DeviceLogin> {
    const { status, body } = await postForm<DeviceAuthorization & TokenAnswer>(
      `${this.origin}/oauth/device_authorization`,
      { client_id: this.clientId, scope: scopes.join(' ') },
      this.stopped.signal,
    );
    if (status !== 200) throw new Error(`device authorization failed: ${status} ${body.error ?? ''}`);
    const finished = this.poll(body);
    // Awaited by the journey; a journey that failed earlier must not leave an unhandled rejection.
    finished.catch(() => undefined);
    return { userCode: body.user_code, verificationUri: body.verification_uri, finished };
  }

  private async poll(grant: DeviceAuthorization): Promise<DeviceLoginOutcome> {
    const deadline = Date.now() + grant.expires_in * 1000;
    let interval = grant.interval;
    while (Date.now() < deadline) {
      await sleep(interval * 1000, this.stopped.signal);
      const { status, body } = await postForm<TokenAnswer>(
        `${this.origin}/oauth/token`,
        { grant_type: DEVICE_GRANT, device_code: grant.device_code, client_id: this.clientId },
        this.stopped.signal,
      );
      if (status === 200 && body.access_token !== undefined) {
        this.accessToken = body.access_token;
        this.scopes = (body.scope ?? '').split(' ').filter((scope) => scope !== '');
        return { exitCode: 0, message: `Logged in with ${this.scopes.join(', ')}.` };
      }
      if (body.error === 'authorization_pending') continue;
      if (body.error === 'slow_down') {
        interval += 5;
        continue;
      }
      return { exitCode: 1, message: `${body.error ?? status}: ${body.error_description ?? ''}` };
    }
    return { exitCode: 1, message: 'expired_token: the client stopped polling at the code’s expiry' };
  }

  async close(): Promise<void> {
    this.stopped.abort();
  }

  async whoami(): Promise<DeviceIdentity> {
    if (this.accessToken === undefined) throw new Error('Not logged in');
    const me = await this.read<{ userId: string; displayName: string }>('/identity/v1/me');
    const organizations = this.scopes.includes('identity.organizations')
      ? await this.read<{ id: string }[]>('/identity/v1/organizations')
      : [];
    return {
      userId: me.userId,
      displayName: me.displayName,
      organizationIds: organizations.map((organization) => organization.id),
      scopes: this.scopes,
    };
  }

  private async read<T>(path: string): Promise<T> {
    const response = await fetch(`${this.origin}${path}`, {
      headers: { authorization: `Bearer ${this.accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`GET ${path} with the device token answered ${response.status}`);
    return (await response.json()) as T;
  }
}
