import { expect } from '@jest/globals';
import request from 'supertest';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import type { IdentityConfig } from '@tessera/identity';
import { TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { bootIdentityHostApp } from '../../support/identity-host-app.js';
import {
  ceremonyCookieOf,
  post,
  registrationStart,
  sessionOf,
  signInStart,
  type TestSession,
} from '../../support/passkey-client.js';

/** Two instances of one deployment: same configuration, secrets and clock, one database. */
export interface InstancePair {
  readonly a: IdentityTestApp;
  readonly b: IdentityTestApp;
  close(): Promise<void>;
}

/**
 * Boots two identity apps on one database (PostgreSQL, or one embedded PGlite server both
 * connect to), as two processes of one deployment would run.
 */
export async function bootInstancePair(overrides: Partial<IdentityConfig> = {}): Promise<InstancePair> {
  const a = await bootIdentityHostApp({ overrides });
  let b: IdentityTestApp;
  try {
    b = await bootIdentityHostApp({ overrides, instanceOf: a });
  } catch (error) {
    await a.close();
    throw error;
  }
  return {
    a,
    b,
    async close() {
      await b.close();
      await a.close();
    },
  };
}

/** The owner bootstrapped on `on`: the organization and the restricted bootstrap session. */
export async function bootstrapOn(
  on: IdentityTestApp,
): Promise<{ userId: string; organizationId: string; session: TestSession }> {
  const res = await post(on, '/identity/v1/bootstrap').send({
    secret: on.bootstrapSecret,
    displayName: 'Ada Lovelace',
    primaryEmail: 'ada@example.com',
    organizationName: 'Analytical Engines',
    organizationSlug: 'engines',
  });
  expect(res.status).toBe(201);
  return { userId: res.body.userId, organizationId: res.body.organization.id, session: sessionOf(res) };
}

/** A passkey registration started on `start` and finished on `finish` with `session`. */
export async function registerAcross(
  start: IdentityTestApp,
  finish: IdentityTestApp,
  session: TestSession,
  authenticator: SoftwareAuthenticator,
): Promise<void> {
  const started = await registrationStart(start, session);
  expect(started.res.status).toBe(200);
  const credential = authenticator.createCredential(started.res.body.publicKey, { origin: TEST_ORIGIN });
  const res = await post(finish, '/identity/v1/passkeys/registration/finish', session, [started.ceremony]).send({
    ceremonyId: started.res.body.ceremonyId,
    credentialName: 'Laptop',
    credential,
  });
  expect(res.status).toBe(200);
}

/** A username-free sign-in started on `start` and finished on `finish`: the new session. */
export async function signInAcross(
  start: IdentityTestApp,
  finish: IdentityTestApp,
  authenticator: SoftwareAuthenticator,
): Promise<TestSession> {
  const started = await signInStart(start);
  expect(started.res.status).toBe(200);
  const credential = authenticator.getAssertion(started.res.body.publicKey, { origin: TEST_ORIGIN });
  const res = await post(finish, '/identity/v1/passkeys/authentication/finish', undefined, [
    ceremonyCookieOf(started.res),
  ]).send({ ceremonyId: started.res.body.ceremonyId, credential });
  expect(res.status).toBe(200);
  return sessionOf(res);
}

/** `GET /identity/v1/me` on `on` with `session`. */
export function me(on: IdentityTestApp, session: TestSession) {
  return request(on.app.getHttpServer()).get('/identity/v1/me').set('cookie', session.cookie);
}

/** A signed-in owner with a passkey whose ceremonies ran across both instances. */
export async function ownerAcross(pair: InstancePair) {
  const bootstrapped = await bootstrapOn(pair.a);
  const authenticator = new SoftwareAuthenticator();
  await registerAcross(pair.b, pair.a, bootstrapped.session, authenticator);
  return { ...bootstrapped, authenticator };
}
