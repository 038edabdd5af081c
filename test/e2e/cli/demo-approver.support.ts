import { expect } from '@jest/globals';
import { SoftwareAuthenticator } from '@tessera/identity-testing';

/** Bound of one request to the demo. */
const REQUEST_TIMEOUT_MS = 10_000;

/** A signed-in passkey session on the demo, as a browser would hold it. */
export interface DemoSession {
  readonly origin: string;
  readonly cookie: string;
  readonly csrfToken: string;
  readonly userId: string;
  readonly organizationId: string;
}

interface Answer {
  readonly status: number;
  readonly body: any;
  readonly cookies: string[];
}

async function send(origin: string, path: string, init: { body?: unknown; cookies?: string[]; csrf?: string }) {
  const headers: Record<string, string> = { origin, 'content-type': 'application/json' };
  if (init.cookies !== undefined && init.cookies.length > 0) headers.cookie = init.cookies.join('; ');
  if (init.csrf !== undefined) headers['x-csrf-token'] = init.csrf;
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!);
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text), cookies } as Answer;
}

function expectStatus(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

const sessionCookie = (answer: Answer) =>
  answer.cookies.find((cookie) => cookie.startsWith('__Host-tessera_session='))!;
const ceremonyCookie = (answer: Answer) =>
  answer.cookies.find((cookie) => cookie.startsWith('__Host-tessera_ceremony='))!;

/**
 * Over HTTP against the running demo: bootstraps the owner (route 46), registers a passkey with
 * the software authenticator (routes 2–3) and signs in with it (routes 4–5) — a full passkey
 * session of the owner of the bootstrap organization.
 */
export async function demoOwnerSession(origin: string, bootstrapSecret: string): Promise<DemoSession> {
  const bootstrap = expectStatus(
    await send(origin, '/identity/v1/bootstrap', {
      body: {
        secret: bootstrapSecret,
        displayName: 'Ada Lovelace',
        primaryEmail: 'ada@example.com',
        organizationName: 'Analytical Engines',
        organizationSlug: 'engines',
      },
    }),
    201,
    'bootstrap',
  );
  const restricted = { cookies: [sessionCookie(bootstrap)], csrf: bootstrap.body.csrfToken as string };
  const authenticator = new SoftwareAuthenticator();
  const start = expectStatus(await send(origin, '/identity/v1/passkeys/registration/start', restricted), 200, 'start');
  expectStatus(
    await send(origin, '/identity/v1/passkeys/registration/finish', {
      cookies: [...restricted.cookies, ceremonyCookie(start)],
      csrf: restricted.csrf,
      body: {
        ceremonyId: start.body.ceremonyId,
        credentialName: 'Laptop',
        credential: authenticator.createCredential(start.body.publicKey, { origin }),
      },
    }),
    200,
    'registration',
  );
  const signInStart = expectStatus(
    await send(origin, '/identity/v1/passkeys/authentication/start', {}),
    200,
    'sign-in',
  );
  const signedIn = expectStatus(
    await send(origin, '/identity/v1/passkeys/authentication/finish', {
      cookies: [ceremonyCookie(signInStart)],
      body: {
        ceremonyId: signInStart.body.ceremonyId,
        credential: authenticator.getAssertion(signInStart.body.publicKey, { origin }),
      },
    }),
    200,
    'sign-in finish',
  );
  return {
    origin,
    cookie: sessionCookie(signedIn),
    csrfToken: signedIn.body.csrfToken,
    userId: signedIn.body.userId,
    organizationId: bootstrap.body.organization.id,
  };
}

/**
 * Decides the device code `userCode` as `session` would on `/device`: inspects it (route 35), then
 * approves `capabilities` for the session's organization (route 36) or denies it (route 37).
 */
export async function decideDeviceCode(
  session: DemoSession,
  userCode: string,
  decision: { approve: readonly string[] } | 'deny',
): Promise<void> {
  const as = { cookies: [session.cookie], csrf: session.csrfToken };
  expect(await inspectDeviceCode(session, userCode)).toBe(200);
  const decided =
    decision === 'deny'
      ? await send(session.origin, '/identity/v1/device/deny', { ...as, body: { userCode } })
      : await send(session.origin, '/identity/v1/device/approve', {
          ...as,
          body: { userCode, organizationId: session.organizationId, capabilities: decision.approve },
        });
  expectStatus(decided, 200, 'decision');
}

/** Inspects `userCode` as `session` (route 35): the status (404 once the code is cancelled or used). */
export async function inspectDeviceCode(session: DemoSession, userCode: string): Promise<number> {
  const as = { cookies: [session.cookie], csrf: session.csrfToken };
  return (await send(session.origin, '/identity/v1/device', { ...as, body: { userCode } })).status;
}

/** A POST of a form to the demo's OAuth endpoints (to check a token server-side). */
export async function postOAuthForm(origin: string, path: string, form: Record<string, string>) {
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}

/** `GET /identity/v1/me` on the demo with a bearer token. */
export async function getMe(origin: string, accessToken: string) {
  const response = await fetch(`${origin}/identity/v1/me`, {
    headers: { authorization: `Bearer ${accessToken}` },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
