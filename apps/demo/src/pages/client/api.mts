/** Route names of the browser-safe client configuration (identity-http §11). */
export type RouteName =
  | 'me'
  | 'sessions'
  | 'logout'
  | 'registrationStart'
  | 'registrationFinish'
  | 'authenticationStart'
  | 'authenticationFinish'
  | 'stepUpStart'
  | 'stepUpFinish'
  | 'passkeys'
  | 'organizations'
  | 'recoveryCodesReplace'
  | 'recoveryCodesUse'
  | 'invitationAccept'
  | 'invitationEnroll'
  | 'deviceInspect'
  | 'deviceApprove'
  | 'deviceDeny'
  | 'bootstrap';

/** `GET /identity/v1/client-config` (route 47): where every call goes and how CSRF travels. */
export interface ClientConfig {
  readonly version: number;
  readonly rpId: string;
  /** `/identity/v1`: routes the configuration does not list (e.g. the invitation preview) are under it. */
  readonly identityBase: string;
  readonly csrf: { readonly header: string; readonly sessionStorageName: string };
  readonly routes: Readonly<Record<RouteName, string>>;
  readonly features: Readonly<Record<string, boolean>>;
}

/** `SessionCreated` (routes 5, 7, 17): the CSRF token of the new session travels only here. */
export interface SessionCreated {
  readonly userId: string;
  readonly sessionId: string;
  readonly assurance: string;
  readonly authenticatedAt: string;
  readonly idleExpiresAt: string;
  readonly absoluteExpiresAt: string;
  readonly csrfToken: string;
}

const CLIENT_CONFIG_PATH = '/identity/v1/client-config';
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A failed identity call: the envelope's fixed `message` and its `requestId` (identity-http §8.1),
 * which the pages always show; non-envelope failures carry the `X-Request-ID` header instead.
 */
export class IdentityApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.name = 'IdentityApiError';
  }
}

/** `true` when the failure means "no usable session": show the sign-in view. */
export function isSignedOut(error: unknown): boolean {
  return (
    error instanceof IdentityApiError &&
    ['authentication_required', 'session_expired', 'session_revoked', 'invalid_credentials'].includes(error.code)
  );
}

/** The channel on which open tabs of this origin hand each other the session's CSRF token. */
const CSRF_CHANNEL = 'tessera.identity.csrf-handoff.v1';
/** A CSRF token: 32 bytes, unpadded base64url. */
const CSRF_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/**
 * The cookie a federated sign-in hands the new session's CSRF token over in (identity-http §6):
 * not HttpOnly so that the landing page can move it into `sessionStorage`, short-lived, and
 * cleared by the page at once.
 */
const FEDERATION_CSRF_COOKIE = '__Host-tessera_csrf';

/**
 * The identity API as the pages use it: same-origin fetches with cookies, JSON bodies, and the CSRF
 * token from `sessionStorage` as `X-CSRF-Token` on every unsafe call (identity-http §2.2).
 */
export class IdentityApi {
  private constructor(readonly config: ClientConfig) {}

  /**
   * Reads the client configuration once per page load, without cookies: it does not depend on the
   * session, and a restricted (recovery) session may call nothing but registration and logout.
   */
  static async load(): Promise<IdentityApi> {
    const api = new IdentityApi(await send<ClientConfig>('GET', CLIENT_CONFIG_PATH, undefined, {}, 'omit'));
    api.adoptFederationCsrfCookie();
    api.shareCsrfToken();
    return api;
  }

  /**
   * After a federated sign-in (or a provider link) the server answers the callback with a 303 to
   * the success page and the new session's CSRF token in the `__Host-tessera_csrf` cookie. Any
   * page that loads moves it into `sessionStorage` (replacing an older session's token) and
   * clears the cookie, so the token does not linger in the cookie jar. `true` when one was adopted.
   */
  adoptFederationCsrfCookie(): boolean {
    const values = document.cookie
      .split(';')
      .map((pair) => pair.trim())
      .filter((pair) => pair.startsWith(`${FEDERATION_CSRF_COOKIE}=`))
      .map((pair) => pair.slice(FEDERATION_CSRF_COOKIE.length + 1));
    if (values.length === 0) return false;
    document.cookie = `${FEDERATION_CSRF_COOKIE}=; Max-Age=0; Path=/; Secure; SameSite=Lax`;
    const token = values[0]!;
    if (values.length !== 1 || !CSRF_TOKEN.test(token)) return false;
    this.keepCsrfToken(token);
    return true;
  }

  /**
   * Answers the other tabs of this origin that ask for the CSRF token (see {@link adoptCsrfToken});
   * a BroadcastChannel reaches only same-origin documents of this browser profile.
   */
  private shareCsrfToken(): void {
    if (typeof BroadcastChannel === 'undefined') return;
    const channel = new BroadcastChannel(CSRF_CHANNEL);
    channel.onmessage = (event: MessageEvent) => {
      const token = sessionStorage.getItem(this.config.csrf.sessionStorageName);
      if ((event.data as { type?: unknown } | null)?.type === 'request' && token !== null)
        channel.postMessage({ type: 'token', token });
    };
  }

  /**
   * Makes sure this tab holds a CSRF token: its own, or one handed over within `waitMs` by another
   * open tab of this site. Each tab keeps its own token, so a tab opened from a terminal (the
   * device page) has none although the browser is signed in. `false` when no tab answered.
   */
  async adoptCsrfToken(waitMs = 600): Promise<boolean> {
    if (this.hasCsrfToken()) return true;
    if (typeof BroadcastChannel === 'undefined') return false;
    const channel = new BroadcastChannel(CSRF_CHANNEL);
    try {
      const token = await new Promise<string | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), waitMs);
        channel.onmessage = (event: MessageEvent) => {
          const data = event.data as { type?: unknown; token?: unknown } | null;
          if (data?.type !== 'token' || typeof data.token !== 'string' || !CSRF_TOKEN.test(data.token)) return;
          clearTimeout(timer);
          resolve(data.token);
        };
        channel.postMessage({ type: 'request' });
      });
      if (token === undefined) return false;
      this.keepCsrfToken(token);
      return true;
    } finally {
      channel.close();
    }
  }

  /** A route under `identityBase` the configuration does not list, e.g. `invitations/preview`. */
  identityPath(path: string): string {
    return `${this.config.identityBase}/${path}`;
  }

  route(name: RouteName, id?: string): string {
    const base = this.config.routes[name];
    return id === undefined ? base : `${base}/${encodeURIComponent(id)}`;
  }

  /** Keeps the CSRF token of a session the server just created (bootstrap, enrolment, sign-in, step-up). */
  keepCsrfToken(token: string): void {
    sessionStorage.setItem(this.config.csrf.sessionStorageName, token);
  }

  /** Whether this tab holds a CSRF token: each tab keeps its own, so a new tab of a signed-in browser has none. */
  hasCsrfToken(): boolean {
    return sessionStorage.getItem(this.config.csrf.sessionStorageName) !== null;
  }

  /** Forgets the CSRF token once the session is gone (logout, revoke-all, finished enrolment). */
  forgetCsrfToken(): void {
    sessionStorage.removeItem(this.config.csrf.sessionStorageName);
  }

  /** Calls an identity route; `body` omitted → no body at all (the "no body" routes). */
  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (UNSAFE.has(method)) {
      const token = sessionStorage.getItem(this.config.csrf.sessionStorageName);
      if (token !== null) headers[this.config.csrf.header] = token;
    }
    return send<T>(method, path, body, headers);
  }
}

async function send<T>(
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
  credentials: RequestCredentials = 'same-origin',
): Promise<T> {
  const init: RequestInit = {
    method,
    credentials,
    cache: 'no-store',
    headers: { accept: 'application/json', ...headers },
  };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new IdentityApiError(0, 'network_error', 'The server could not be reached; check your connection', undefined);
  }
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const json = (response.headers.get('content-type') ?? '').startsWith('application/json')
    ? ((await response.json().catch(() => undefined)) as unknown)
    : undefined;
  if (response.ok) return json as T;
  const envelope = (json as { error?: { code?: unknown; message?: unknown; requestId?: unknown } } | undefined)?.error;
  if (envelope !== undefined && typeof envelope.code === 'string' && typeof envelope.message === 'string') {
    const id = typeof envelope.requestId === 'string' ? envelope.requestId : requestId;
    throw new IdentityApiError(response.status, envelope.code, envelope.message, id);
  }
  throw new IdentityApiError(response.status, 'http_error', `The server answered HTTP ${response.status}`, requestId);
}
