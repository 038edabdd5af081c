/**
 * An in-process OpenID Provider (`oidc-provider` 9) on http://127.0.0.1:<free port> for federation
 * tests: clients registered at run time, ES256 and RS256 signing keys, and programmatic login —
 * `nextLogin(subject)` makes the next authorization request finish login and consent by itself, so
 * the browser (Chromium) or an HTTP client following redirects lands on the relying party's
 * callback with `code`, `state` and `iss`.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type OidcProviderAccount, type OidcProviderAdapter } from 'oidc-provider';

/** A client the test IdP accepts. */
export interface OidcTestClient {
  readonly clientId: string;
  /** Omitted: a public client (`token_endpoint_auth_method: none`, PKCE required). */
  readonly clientSecret?: string;
  readonly redirectUris: readonly string[];
  /** @default 'RS256' */
  readonly idTokenSignedResponseAlg?: 'ES256' | 'RS256';
}

/** A running test IdP. */
export interface OidcTestIdp {
  /** `http://127.0.0.1:<port>` (no trailing slash): register this issuer exactly. */
  readonly issuer: string;
  addClient(client: OidcTestClient): void;
  /** The next authorization request signs `subject` in and consents, without a page. */
  nextLogin(subject: string, claims?: Readonly<Record<string, unknown>>): void;
  /** The next authorization request is refused by the user: the IdP redirects with `error=access_denied`. */
  nextDenial(): void;
  /**
   * Follows the IdP's own redirects for an authorization URL (with a cookie jar, as a browser would)
   * and returns the URL the IdP finally redirects to: the relying party's callback. Pass the same
   * `cookies` across calls to act as one browser that keeps its IdP session.
   */
  authorize(authorizationUrl: string, cookies?: Map<string, string>): Promise<URL>;
  /** Requests served, by path (`/.well-known/openid-configuration`, `/jwks`, `/token`, …). */
  readonly requests: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/**
 * Starts the test IdP.
 *
 * @example
 * const idp = await startOidcTestIdp();
 * idp.addClient({ clientId: 'rp', clientSecret: 's3cret', redirectUris: [callbackUrl] });
 * idp.nextLogin('alice');
 * const callback = await idp.authorize(await rp.authorizationUrl(settings, input));
 */
export async function startOidcTestIdp(): Promise<OidcTestIdp> {
  const clients = new Map<string, Record<string, unknown>>();
  const logins: QueuedLogin[] = [];
  const accounts = new Map<string, Readonly<Record<string, unknown>>>();
  const requests = new Map<string, number>();
  const freshLogins = new Set<string>();
  // Listening first: the issuer (and so the provider) needs the port; requests are routed below.
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(clients),
    jwks: { keys: [signingKey('EC'), signingKey('RSA')] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, sub: string): OidcProviderAccount => ({
      accountId: sub,
      claims: () => ({ ...accounts.get(sub), sub }),
    }),
    // Provider errors as plain text: a test that fails shows why, never a silent page.
    renderError: (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'text/plain';
      ctx.body = `${out['error']}: ${out['error_description']}`;
    },
  });
  const providerCallback = provider.callback();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    if (req.method === 'GET' && path.startsWith('/interaction/')) {
      finishInteraction(provider, logins, accounts, freshLogins, req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(`test IdP interaction failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      return;
    }
    // A queued login starts a fresh IdP session ("sign in as someone else"): neither the
    // authorization request nor its resume sees the browser's earlier session, so the login prompt
    // always runs and oidc-provider never asks to log the previous account out first.
    const resumed = /^\/auth\/([^/]+)$/.exec(path)?.[1];
    if ((path === '/auth' && logins.length > 0) || (resumed !== undefined && freshLogins.delete(resumed))) {
      dropSessionCookie(req);
    }
    providerCallback(req, res);
  });

  return {
    issuer,
    requests,
    addClient(client) {
      clients.set(client.clientId, {
        client_id: client.clientId,
        ...(client.clientSecret === undefined
          ? { token_endpoint_auth_method: 'none' }
          : { client_secret: client.clientSecret, token_endpoint_auth_method: 'client_secret_basic' }),
        redirect_uris: [...client.redirectUris],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: client.idTokenSignedResponseAlg ?? 'RS256',
      });
    },
    nextLogin(subject, claims = {}) {
      logins.push({ subject, claims });
    },
    nextDenial() {
      logins.push('deny');
    },
    authorize: (authorizationUrl, cookies = new Map()) => followIdpRedirects(issuer, authorizationUrl, cookies),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

type QueuedLogin = { subject: string; claims: Readonly<Record<string, unknown>> } | 'deny';

/** Login (the queued subject) and consent (everything asked) in one interaction result. */
async function finishInteraction(
  provider: Provider,
  logins: QueuedLogin[],
  accounts: Map<string, Readonly<Record<string, unknown>>>,
  freshLogins: Set<string>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const clientId = String(details.params['client_id']);
  let accountId = details.session?.accountId;
  const result: Record<string, unknown> = {};
  if (details.prompt.name === 'login' || accountId === undefined) {
    const login = logins.shift();
    if (login === undefined) {
      res.statusCode = 403;
      res.end('test IdP: no login queued (call idp.nextLogin(subject) first)');
      return;
    }
    if (login === 'deny') {
      const denial = { error: 'access_denied', error_description: 'the user refused' };
      await provider.interactionFinished(req, res, denial, { mergeWithLastSubmission: false });
      return;
    }
    accountId = login.subject;
    accounts.set(accountId, login.claims);
    result['login'] = { accountId };
    freshLogins.add(details.uid);
  }
  const grant = new provider.Grant({ accountId, clientId });
  grant.addOIDCScope(String(details.params['scope'] ?? 'openid'));
  result['consent'] = { grantId: await grant.save() };
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

function dropSessionCookie(req: IncomingMessage): void {
  const cookies = (req.headers.cookie ?? '').split(';').map((part) => part.trim());
  req.headers.cookie = cookies.filter((part) => !/^_session(\.[a-z.]+)?=/.test(part)).join('; ');
}

/** Follows IdP-origin redirects with a cookie jar until one leaves the IdP; returns that URL. */
async function followIdpRedirects(issuer: string, authorizationUrl: string, jar: Map<string, string>): Promise<URL> {
  const origin = new URL(issuer).origin;
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 10; hop++) {
    if (url.origin !== origin) return url;
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const separator = pair!.indexOf('=');
      jar.set(pair!.slice(0, separator).trim(), pair!.slice(separator + 1).trim());
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) {
      throw new Error(`test IdP answered ${response.status} at ${url.pathname}: ${await response.text()}`);
    }
    url = new URL(location, url);
  }
  throw new Error('test IdP: too many redirects');
}

function signingKey(type: 'EC' | 'RSA'): Record<string, unknown> {
  const pair =
    type === 'EC'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    ...pair.privateKey.export({ format: 'jwk' }),
    kid: `${type.toLowerCase()}-${randomBytes(4).toString('hex')}`,
    use: 'sig',
  };
}

/** oidc-provider's storage for one IdP: clients from the test's registry, everything else in memory. */
function memoryAdapter(
  clients: ReadonlyMap<string, Record<string, unknown>>,
): new (model: string) => OidcProviderAdapter {
  const store = new Map<string, { payload: Record<string, unknown>; expiresAt: number }>();
  const live = (key: string): Record<string, unknown> | undefined => {
    const entry = store.get(key);
    if (entry === undefined || entry.expiresAt <= Date.now()) return undefined;
    return entry.payload;
  };
  return class TestIdpAdapter implements OidcProviderAdapter {
    constructor(private readonly model: string) {}
    private key(id: string): string {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
      store.set(this.key(id), {
        payload: { ...payload },
        expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity,
      });
    }
    async find(id: string): Promise<Record<string, unknown> | undefined> {
      if (this.model === 'Client') return clients.get(id);
      return live(this.key(id));
    }
    async findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined> {
      return [...store.values()].find((entry) => entry.payload['userCode'] === userCode)?.payload;
    }
    async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
      const prefix = `${this.model}:`;
      for (const [key, entry] of store) {
        if (key.startsWith(prefix) && entry.payload['uid'] === uid && entry.expiresAt > Date.now())
          return entry.payload;
      }
      return undefined;
    }
    async consume(id: string): Promise<void> {
      const payload = live(this.key(id));
      if (payload !== undefined) payload['consumed'] = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, entry] of store) if (entry.payload['grantId'] === grantId) store.delete(key);
    }
  };
}
