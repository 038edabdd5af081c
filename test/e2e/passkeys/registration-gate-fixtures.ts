import { expect } from '@jest/globals';
import request from 'supertest';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { registerPasskey, sessionOf, signIn, type TestSession } from '../../support/passkey-client.js';
import { enrollInvitee, rowsOf, sessionRow, setCookiesOf, userEpoch } from './passkey-fixtures.js';

/** Shared helpers of the registration-gate specs (not a spec itself). */

/** The reason codes of the `credential.registered` audits of a user. */
export async function registeredSources(identity: IdentityTestApp, userId: string): Promise<unknown[]> {
  const rows = await rowsOf(identity).sql(
    `select reason_code from tessera_identity.audit_events
      where action = 'credential.registered' and actor_user_id = ?`,
    [userId],
  );
  // The frozen clock stamps many events with one instant: compare as a sorted list.
  return rows.map((row) => String(row['reason_code'])).sort();
}

export async function challengeCount(identity: IdentityTestApp, userId: string): Promise<number> {
  return rowsOf(identity).count('challenges', 'user_id = ?', [userId]);
}

/** Start + finish a registration with a new authenticator. */
export function register(identity: IdentityTestApp, session: TestSession, authenticator = new SoftwareAuthenticator()) {
  return registerPasskey(identity, session, authenticator);
}

/** What a registration must leave alone on a full session (a touch may still slide the idle expiry). */
export async function sessionIdentity(identity: IdentityTestApp, sessionId: string) {
  const row = await sessionRow(identity, sessionId);
  const keep = [
    'state',
    'assurance',
    'authentication_method',
    'family_id',
    'rotation_counter',
    'user_session_epoch',
    'token_digest_encoded',
    'csrf_digest_encoded',
    'authenticated_at',
    'absolute_expires_at',
    'federation_organization_id',
  ];
  return Object.fromEntries(keep.map((column) => [column, row[column]]));
}

/**
 * Registers with a full session and asserts the answer is `{passkey}` only and that the session
 * is unchanged (no new cookie, same state, assurance, family, digests and epoch).
 */
export async function registerKeepingSession(
  identity: IdentityTestApp,
  session: TestSession,
  authenticator = new SoftwareAuthenticator(),
): Promise<void> {
  const before = await sessionIdentity(identity, session.sessionId);
  const epoch = await userEpoch(identity, session.userId);
  const res = await register(identity, session, authenticator);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(['passkey']);
  expect(res.body.passkey).toMatchObject({ name: 'Laptop', state: 'active', transports: ['internal'] });
  expect(setCookiesOf(res).filter((cookie) => cookie.startsWith('__Host-tessera_session='))).toEqual([]);
  expect(await sessionIdentity(identity, session.sessionId)).toEqual(before);
  expect(before['state']).toBe('active');
  expect(await userEpoch(identity, session.userId)).toBe(epoch);
  const me = await request(identity.app.getHttpServer()).get('/identity/v1/me').set('cookie', session.cookie);
  expect(me.status).toBe(200);
}

/** A passkey session from a fresh sign-in. */
export async function signInSession(
  identity: IdentityTestApp,
  authenticator: SoftwareAuthenticator,
  credentialId?: string,
) {
  const res = await signIn(identity, authenticator, credentialId ? { credentialId } : {});
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return sessionOf(res);
}

/** An invitee who enrolled a passkey (and so holds recovery codes, generation 0). */
export async function inviteeWithCodes(identity: IdentityTestApp, organizationId: string, invitedBy: string) {
  const restricted = await enrollInvitee(identity, organizationId, invitedBy);
  const res = await register(identity, restricted);
  if (res.status !== 200) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return { userId: restricted.userId };
}
