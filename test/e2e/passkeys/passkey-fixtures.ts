import { expect } from '@jest/globals';
import request from 'supertest';
import type { Response } from 'supertest';
import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/core';
import { IdentityInvitations, issueSession, type AuthenticationMethod, type IdentityConfig } from '@tessera/identity';
import {
  IdentityTestRows,
  SoftwareAuthenticator,
  type AssertionOverrides,
  type RegistrationOverrides,
  type TestRow,
  seedFederation,
} from '@tessera/identity-testing';
import { bootIdentityApp, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import {
  bootstrapOwner,
  ceremonyCookieOf,
  post,
  registerPasskey,
  sessionOf,
  signIn,
  type TestSession,
} from '../../support/passkey-client.js';
import { identityKernelOf, type IdentityKernel } from '../../support/identity-kernel.js';

/** The ceremony cookie clear every finish must send (identity-http §9.1). */
export const CLEARED_CEREMONY_COOKIE = '__Host-tessera_ceremony=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict';

export const REGISTRATION_START = '/identity/v1/passkeys/registration/start';
export const REGISTRATION_FINISH = '/identity/v1/passkeys/registration/finish';
export const SIGN_IN_START = '/identity/v1/passkeys/authentication/start';
export const SIGN_IN_FINISH = '/identity/v1/passkeys/authentication/finish';
export const STEP_UP_START = '/identity/v1/passkeys/step-up/start';
export const STEP_UP_FINISH = '/identity/v1/passkeys/step-up/finish';

/**
 * An identity app for ceremony tests: the anonymous rate limits are off (they have their own
 * tests), so dozens of ceremonies from one peer reach the verifier.
 */
export function bootPasskeyApp(overrides: Partial<IdentityConfig> = {}): Promise<IdentityTestApp> {
  return bootIdentityApp({
    ...overrides,
    rateLimits: {
      passkey_auth_start: false,
      passkey_auth_finish: false,
      invitation_enroll: false,
      ...overrides.rateLimits,
    },
  });
}

export function rowsOf(identity: IdentityTestApp): IdentityTestRows {
  return new IdentityTestRows(identity.app.get(MikroORM).em);
}

export function kernelOf(identity: IdentityTestApp): IdentityKernel {
  return identityKernelOf(identity.app);
}

/** The error envelope without its request id. */
export function errorOf(res: Response): { status: number; code: string; message: string; retryable: boolean } {
  const { code, message, retryable } = (res.body as { error: { code: string; message: string; retryable: boolean } })
    .error;
  return { status: res.status, code, message, retryable };
}

export function setCookiesOf(res: Response): string[] {
  return (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
}

/** The stored challenge row of a ceremony. */
export async function challengeOf(identity: IdentityTestApp, ceremonyId: string): Promise<TestRow> {
  const [row] = await rowsOf(identity).sql('select * from tessera_identity.challenges where id = ?', [ceremonyId]);
  if (row === undefined) throw new Error(`no challenge ${ceremonyId}`);
  return row;
}

/** The `webauthn.ceremony_rejected` audit events written for a ceremony. */
export async function rejectionsOf(identity: IdentityTestApp, ceremonyId: string): Promise<TestRow[]> {
  return rowsOf(identity).sql(
    `select * from tessera_identity.audit_events
      where action = 'webauthn.ceremony_rejected' and target_type = 'challenge' and target_id = ?`,
    [ceremonyId],
  );
}

export async function sessionRow(identity: IdentityTestApp, sessionId: string): Promise<TestRow> {
  const [row] = await rowsOf(identity).sql('select * from tessera_identity.sessions where id = ?', [sessionId]);
  if (row === undefined) throw new Error(`no session ${sessionId}`);
  return row;
}

export async function sessionCount(identity: IdentityTestApp, userId?: string): Promise<number> {
  return userId === undefined
    ? rowsOf(identity).count('sessions')
    : rowsOf(identity).count('sessions', 'user_id = ?', [userId]);
}

export async function credentialRows(identity: IdentityTestApp, userId: string): Promise<TestRow[]> {
  return rowsOf(identity).sql('select * from tessera_identity.credentials where user_id = ? order by created_at, id', [
    userId,
  ]);
}

export async function userEpoch(identity: IdentityTestApp, userId: string): Promise<number> {
  const [row] = await rowsOf(identity).sql('select session_epoch from tessera_identity.users where id = ?', [userId]);
  return Number(row!['session_epoch']);
}

/**
 * Asserts the outcome every rejected finish of a known pending ceremony must have
 * (identity-model §5.3): the answer, the ceremony ended `failed` with `failureReason`, exactly one
 * denied `webauthn.ceremony_rejected` audit whose reason is the error code (or `auditReason`), and
 * the ceremony cookie cleared.
 */
export async function expectCeremonyRejected(
  identity: IdentityTestApp,
  res: Response,
  ceremonyId: string,
  expected: { status: number; code: string; failureReason: string; auditReason?: string; state?: string },
): Promise<void> {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: expected.status, code: expected.code });
  const challenge = await challengeOf(identity, ceremonyId);
  expect({ state: challenge['state'], failureReason: challenge['failure_reason'] }).toEqual({
    state: expected.state ?? 'failed',
    failureReason: expected.failureReason,
  });
  const audits = await rejectionsOf(identity, ceremonyId);
  expect(audits.map((a) => ({ outcome: a['outcome'], reason: a['reason_code'] }))).toEqual([
    { outcome: 'denied', reason: expected.auditReason ?? expected.code },
  ]);
  expect(setCookiesOf(res)).toContain(CLEARED_CEREMONY_COOKIE);
}

/** A started ceremony: its id, options and cookie. */
export interface StartedCeremony {
  readonly res: Response;
  readonly ceremonyId: string;
  readonly publicKey: Record<string, unknown> & { challenge: string };
  readonly cookie: string;
}

export async function startCeremony(
  identity: IdentityTestApp,
  path: string,
  session?: TestSession,
): Promise<StartedCeremony> {
  const res = await post(identity, path, session);
  if (res.status !== 200) throw new Error(`${path} failed: ${res.status} ${res.text}`);
  return { res, ceremonyId: res.body.ceremonyId, publicKey: res.body.publicKey, cookie: ceremonyCookieOf(res) };
}

/** POSTs a finish body; `cookies` are the ceremony cookies to send (default: the ceremony's own). */
export function finish(
  identity: IdentityTestApp,
  path: string,
  body: Record<string, unknown>,
  options: { session?: TestSession; cookies?: string[] } = {},
) {
  return post(identity, path, options.session, options.cookies ?? []).send(body);
}

/**
 * Sign-in start + a (possibly broken) assertion, not yet finished; `overrides` may depend on the
 * ceremony's challenge (e.g. a hand-written clientDataJSON).
 */
export async function signInAttempt(
  identity: IdentityTestApp,
  authenticator: SoftwareAuthenticator,
  options: {
    overrides?: AssertionOverrides | ((challenge: string) => AssertionOverrides);
    origin?: string;
    credentialId?: string;
    session?: TestSession;
  } = {},
) {
  const started = await startCeremony(identity, SIGN_IN_START, options.session);
  const overrides =
    typeof options.overrides === 'function' ? options.overrides(started.publicKey.challenge) : options.overrides;
  const credential = authenticator.getAssertion(started.publicKey as never, {
    origin: options.origin ?? TEST_ORIGIN,
    ...(options.credentialId ? { credentialId: options.credentialId } : {}),
    ...(overrides ? { overrides } : {}),
  });
  return { ...started, credential, body: { ceremonyId: started.ceremonyId, credential } };
}

/** Registration start + a (possibly broken) registration credential, not yet finished. */
export async function registrationAttempt(
  identity: IdentityTestApp,
  session: TestSession,
  authenticator: SoftwareAuthenticator,
  options: { overrides?: RegistrationOverrides; origin?: string } = {},
) {
  const started = await startCeremony(identity, REGISTRATION_START, session);
  const credential = authenticator.createCredential(started.publicKey as never, {
    origin: options.origin ?? TEST_ORIGIN,
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  return { ...started, credential, body: { ceremonyId: started.ceremonyId, credentialName: 'Laptop', credential } };
}

/** The organization the bootstrap created for `ownerId`. */
export async function organizationOf(identity: IdentityTestApp, ownerId: string): Promise<string> {
  const [row] = await rowsOf(identity).sql(
    `select organization_id from tessera_identity.memberships where user_id = ? and state = 'active'`,
    [ownerId],
  );
  return String(row!['organization_id']);
}

/** An invitation (issued by `invitedBy`) enrolled over HTTP: the invitee's restricted session. */
export async function enrollInvitee(
  identity: IdentityTestApp,
  organizationId: string,
  invitedBy: string | null,
  email = `invitee-${randomBytes(4).toString('hex')}@example.com`,
  displayName = 'Grace Hopper',
): Promise<TestSession> {
  const { token } = await identity.app
    .get(IdentityInvitations)
    .create({ organizationId, email, role: 'publisher', invitedByUserId: invitedBy });
  const res = await request(identity.app.getHttpServer())
    .post('/identity/v1/invitations/enroll')
    .send({ token, displayName });
  if (res.status !== 201) throw new Error(`enrollment failed: ${res.status} ${res.text}`);
  return sessionOf(res);
}

/** A federation provenance for a seeded oidc session: an organization and an external identity. */
async function federation(identity: IdentityTestApp, userId: string, at: Date) {
  const rows = rowsOf(identity);
  const organizationId = await rows.organization({ at });
  await rows.membership(organizationId, userId, { at });
  // An enabled provider control too: session resolution checks it (identity-http §2.1).
  return seedFederation(rows, organizationId, userId, at);
}

/**
 * Seeds a session row minted with the app's own pepper (the routes that create these sessions
 * — federation callbacks, recovery — are exercised elsewhere): `oidc` sessions get a full
 * federation provenance (organization, membership, external identity).
 */
export async function seedSession(
  identity: IdentityTestApp,
  userId: string,
  method: AuthenticationMethod,
  authenticatedAt: Date = identity.clock.now(),
): Promise<TestSession> {
  const kernel = kernelOf(identity);
  const assurance = method === 'passkey' ? 'passkey' : method === 'oidc' || method === 'saml' ? 'session' : 'recovery';
  const restricted = assurance === 'recovery';
  const issued = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
    userId,
    assurance,
    authenticationMethod: method,
    authenticatedAt,
    lifetimes: restricted
      ? { idleSeconds: 900, absoluteSeconds: 900 }
      : {
          idleSeconds: kernel.config.lifetimes.sessionIdleSeconds,
          absoluteSeconds: kernel.config.lifetimes.sessionAbsoluteSeconds,
        },
    ...(method === 'oidc' || method === 'saml'
      ? { federation: await federation(identity, userId, authenticatedAt) }
      : {}),
  });
  const s = issued.session;
  const at = s.authenticatedAt;
  await rowsOf(identity).insert('sessions', {
    id: s.id,
    family_id: s.familyId,
    user_id: s.userId,
    token_digest_algorithm: s.tokenDigest.algorithm,
    token_digest_encoded: s.tokenDigest.encoded,
    token_digest_key_version: s.tokenDigest.keyVersion,
    csrf_digest_algorithm: s.csrfDigest.algorithm,
    csrf_digest_encoded: s.csrfDigest.encoded,
    csrf_digest_key_version: s.csrfDigest.keyVersion,
    state: 'active',
    assurance: s.assurance,
    authentication_method: s.authenticationMethod,
    federation_organization_id: s.federation?.organizationId ?? null,
    federation_provider_key: s.federation?.providerKey ?? null,
    federation_provider_session_epoch: s.federation?.providerSessionEpoch ?? null,
    external_identity_id: s.federation?.externalIdentityId ?? null,
    user_session_epoch: await userEpoch(identity, userId),
    rotation_counter: 0,
    authenticated_at: at,
    last_used_at: at,
    idle_expires_at: s.idleExpiresAt,
    absolute_expires_at: s.absoluteExpiresAt,
    created_at: at,
    updated_at: at,
    version: 0,
  });
  return {
    userId,
    sessionId: s.id,
    cookie: `__Host-tessera_session=${issued.cookieToken}`,
    csrfToken: issued.csrfToken,
  };
}

/** A user seeded without any credential (federated users arrive this way). */
export function seedUser(identity: IdentityTestApp): Promise<string> {
  return rowsOf(identity).user({ at: identity.clock.now() });
}

/** A passkey user with a fresh passkey session. */
export interface PasskeyUser {
  readonly userId: string;
  readonly authenticator: SoftwareAuthenticator;
  readonly credentialId: string;
  readonly session: TestSession;
}

/** Bootstrap owner + first passkey + a passkey session. */
export async function ownerWithPasskey(identity: IdentityTestApp): Promise<PasskeyUser> {
  return passkeyUserFrom(identity, await bootstrapOwner(identity));
}

/** Invitation enrollment + first passkey + a passkey session (a second user). */
export async function inviteeWithPasskey(
  identity: IdentityTestApp,
  organizationId: string,
  invitedBy: string,
  authenticator = new SoftwareAuthenticator(),
): Promise<PasskeyUser> {
  return passkeyUserFrom(identity, await enrollInvitee(identity, organizationId, invitedBy), authenticator);
}

async function passkeyUserFrom(
  identity: IdentityTestApp,
  restricted: TestSession,
  authenticator = new SoftwareAuthenticator(),
): Promise<PasskeyUser> {
  const registered = await registerPasskey(identity, restricted, authenticator);
  if (registered.status !== 200) throw new Error(`registration failed: ${registered.status} ${registered.text}`);
  const signedIn = await signIn(identity, authenticator);
  if (signedIn.status !== 200) throw new Error(`sign-in failed: ${signedIn.status} ${signedIn.text}`);
  return {
    userId: restricted.userId,
    authenticator,
    credentialId: authenticator.credentials()[0]!.credentialId,
    session: sessionOf(signedIn),
  };
}

/** A new passkey session of `user` (a sign-in now: STEP holds for five minutes). */
export async function freshSession(identity: IdentityTestApp, user: PasskeyUser): Promise<TestSession> {
  const signedIn = await signIn(identity, user.authenticator, { credentialId: user.credentialId });
  if (signedIn.status !== 200) throw new Error(`sign-in failed: ${signedIn.status} ${signedIn.text}`);
  return sessionOf(signedIn);
}
