/**
 * A hand-made OpenID Provider for the relying party's negative table: discovery, JWKS, an
 * authorization endpoint without any page, and a token endpoint whose ID token each test shapes
 * (wrong issuer or audience, several audiences, nonce, `alg: none`, HS256 with the client secret,
 * times, unknown `kid`, duplicate claims, altered payload). Tokens are signed with node:crypto over
 * the exact header and payload bytes: no JOSE library emits the malformed tokens (repeated header
 * members, `alg: none`) this IdP exists to send; verification is openid-client's, in the code under test.
 */
import { createHash, createHmac, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the next ID token is made. */
export interface FakeIdTokenShape {
  /** @default 'ES256' */
  readonly alg?: 'ES256' | 'RS256' | 'HS256' | 'none';
  /** `unpublished`: signed with a key that is never in the JWKS. @default 'published' */
  readonly key?: 'published' | 'unpublished';
  /** The header `kid`; `null` omits it. @default the signing key's kid */
  readonly kid?: string | null;
  /** Merged over the default claims; an `undefined` value removes the claim. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** Rewrites the payload JSON text before signing (e.g. to repeat a member). */
  readonly payloadJson?: (json: string) => string;
  /** Rewrites the header JSON text before signing (the signature covers the rewritten text). */
  readonly headerJson?: (json: string) => string;
  /** Replaces the payload after signing, keeping the signature (an altered token). */
  readonly alterAfterSigning?: Readonly<Record<string, unknown>>;
}

/** How the next authorization response is made. */
export interface FakeAuthorizationShape {
  /** The `iss` parameter: `null` omits it. @default the issuer */
  readonly iss?: string | null;
  /** Answer `error=<value>` instead of a code. */
  readonly error?: string;
}

/** A running fake IdP. */
export interface FakeOidcIdp {
  /** `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Requests served per endpoint. */
  readonly counts: { discovery: number; jwks: number; authorize: number; token: number };
  /** The discovery document served (mutable: tests patch it). */
  readonly metadata: Record<string, unknown>;
  /** Serve this exact text as the discovery document instead of `metadata`. */
  discoveryText: string | undefined;
  /** Status of the discovery and JWKS answers. @default 200 */
  discoveryStatus: number;
  jwksStatus: number;
  nextIdToken(shape: FakeIdTokenShape): void;
  nextAuthorization(shape: FakeAuthorizationShape): void;
  /** The next token-endpoint answer, verbatim (`body` as JSON, or as the exact text). */
  nextTokenResponse(status: number, body: Record<string, unknown> | string): void;
  /** Replaces the published keys by new ones (new kids). */
  rotateKeys(): Promise<void>;
  /** Runs the authorization endpoint for our URL and returns where it redirects (the callback). */
  authorize(authorizationUrl: string): Promise<URL>;
  close(): Promise<void>;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicJwk: Record<string, unknown>;
}

/**
 * Starts the fake IdP; `now` dates the ID tokens (the test's frozen clock).
 *
 * @example
 * const idp = await startFakeOidcIdp({ now: () => clock.now() });
 * idp.nextIdToken({ claims: { aud: 'someone-else' } });
 */
export async function startFakeOidcIdp(options: { now: () => Date; clientId?: string }): Promise<FakeOidcIdp> {
  const clientId = options.clientId ?? 'fake-rp';
  const clientSecret = randomBytes(32).toString('base64url');
  const counts = { discovery: 0, jwks: 0, authorize: 0, token: 0 };
  const codes = new Map<string, { nonce: string; codeChallenge: string; redirectUri: string; used: boolean }>();
  let keys = { es256: signingKey('ES256'), rs256: signingKey('RS256') };
  const unpublished = { es256: signingKey('ES256'), rs256: signingKey('RS256') };
  let idTokenShape: FakeIdTokenShape = {};
  let authorizationShape: FakeAuthorizationShape = {};
  let tokenAnswer: { status: number; body: Record<string, unknown> | string } | undefined;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { error: 'server_error', detail: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const metadata: Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256', 'RS256'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
    authorization_response_iss_parameter_supported: true,
  };

  const idp: FakeOidcIdp = {
    issuer,
    clientId,
    clientSecret,
    counts,
    metadata,
    discoveryText: undefined,
    discoveryStatus: 200,
    jwksStatus: 200,
    nextIdToken: (shape) => void (idTokenShape = shape),
    nextAuthorization: (shape) => void (authorizationShape = shape),
    nextTokenResponse: (status, body) => void (tokenAnswer = { status, body }),
    rotateKeys: async () => {
      keys = { es256: signingKey('ES256'), rs256: signingKey('RS256') };
    },
    authorize: async (authorizationUrl) => {
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status !== 302 || location === null) throw new Error(`fake IdP answered ${response.status}`);
      return new URL(location);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      counts.discovery++;
      sendText(res, idp.discoveryStatus, idp.discoveryText ?? JSON.stringify(metadata));
    } else if (req.method === 'GET' && url.pathname === '/jwks') {
      counts.jwks++;
      send(res, idp.jwksStatus, { keys: [keys.es256.publicJwk, keys.rs256.publicJwk] });
    } else if (req.method === 'GET' && url.pathname === '/authorize') {
      counts.authorize++;
      authorize(url, res);
    } else if (req.method === 'POST' && url.pathname === '/token') {
      counts.token++;
      await token(req, res);
    } else {
      send(res, 404, { error: 'not_found' });
    }
  }

  function authorize(url: URL, res: ServerResponse): void {
    const params = url.searchParams;
    const redirectUri = params.get('redirect_uri') ?? '';
    const shape = authorizationShape;
    authorizationShape = {};
    const target = new URL(redirectUri);
    if (shape.error !== undefined) {
      target.searchParams.set('error', shape.error);
    } else {
      if (params.get('client_id') !== clientId || params.get('code_challenge_method') !== 'S256') {
        send(res, 400, { error: 'invalid_request' });
        return;
      }
      const code = randomBytes(24).toString('base64url');
      codes.set(code, {
        nonce: params.get('nonce') ?? '',
        codeChallenge: params.get('code_challenge') ?? '',
        redirectUri,
        used: false,
      });
      target.searchParams.set('code', code);
    }
    target.searchParams.set('state', params.get('state') ?? '');
    const iss = shape.iss === undefined ? issuer : shape.iss;
    if (iss !== null) target.searchParams.set('iss', iss);
    res.writeHead(302, { location: target.href }).end();
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    if (tokenAnswer !== undefined) {
      const answer = tokenAnswer;
      tokenAnswer = undefined;
      sendText(res, answer.status, typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      return;
    }
    if (!basicCredentialsMatch(req.headers.authorization, clientId, clientSecret)) {
      send(res, 401, { error: 'invalid_client' });
      return;
    }
    const grant = codes.get(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (
      grant === undefined ||
      grant.used ||
      grant.codeChallenge !== challenge ||
      grant.redirectUri !== form.get('redirect_uri')
    ) {
      send(res, 400, { error: 'invalid_grant' });
      return;
    }
    grant.used = true;
    const shape = idTokenShape;
    idTokenShape = {};
    const id_token = idToken(shape, grant.nonce);
    send(res, 200, {
      access_token: randomBytes(16).toString('base64url'),
      token_type: 'Bearer',
      expires_in: 300,
      id_token,
    });
  }

  function idToken(shape: FakeIdTokenShape, nonce: string): string {
    const alg = shape.alg ?? 'ES256';
    const now = Math.floor(options.now().getTime() / 1000);
    const claims: Record<string, unknown> = {
      iss: issuer,
      sub: 'fake-subject',
      aud: clientId,
      iat: now,
      exp: now + 300,
      nonce,
    };
    for (const [name, value] of Object.entries(shape.claims ?? {})) {
      if (value === undefined) delete claims[name];
      else claims[name] = value;
    }
    const set = shape.key === 'unpublished' ? unpublished : keys;
    const key = alg === 'RS256' ? set.rs256 : set.es256;
    const header: Record<string, unknown> = { alg, typ: 'JWT' };
    const kid = shape.kid === undefined ? (alg === 'ES256' || alg === 'RS256' ? key.kid : undefined) : shape.kid;
    if (kid !== null && kid !== undefined) header['kid'] = kid;
    const headerJson = (shape.headerJson ?? ((json) => json))(JSON.stringify(header));
    const payloadJson = (shape.payloadJson ?? ((json) => json))(JSON.stringify(claims));
    const input = `${b64(headerJson)}.${b64(payloadJson)}`;
    let token = `${input}.${signature(alg, input, key.privateKey, clientSecret)}`;
    if (shape.alterAfterSigning !== undefined) {
      const [h, , s] = token.split('.');
      token = `${h}.${b64(JSON.stringify({ ...claims, ...shape.alterAfterSigning }))}.${s}`;
    }
    return token;
  }

  return idp;
}

function signingKey(alg: 'ES256' | 'RS256'): SigningKey {
  const { privateKey, publicKey } =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `${alg.toLowerCase()}-${randomBytes(6).toString('hex')}`;
  return { kid, privateKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' } };
}

/** The JWS signature (base64url) of `input`: RFC 7518 §3.2–3.4 with the key of `alg`. */
function signature(alg: FakeIdTokenShape['alg'], input: string, privateKey: KeyObject, clientSecret: string): string {
  const data = Buffer.from(input, 'ascii');
  switch (alg) {
    case 'none':
      return '';
    case 'HS256':
      return createHmac('sha256', clientSecret).update(data).digest('base64url');
    case 'RS256':
      return sign('sha256', data, privateKey).toString('base64url');
    default:
      return sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  }
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function basicCredentialsMatch(header: string | undefined, clientId: string, clientSecret: string): boolean {
  if (header === undefined || !header.startsWith('Basic ')) return false;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return false;
  const decode = (value: string): string => decodeURIComponent(value.replace(/\+/g, ' '));
  return decode(decoded.slice(0, separator)) === clientId && decode(decoded.slice(separator + 1)) === clientSecret;
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
