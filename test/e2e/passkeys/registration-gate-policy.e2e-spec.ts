import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { bootstrapOwner, post, sessionOf, stepUp } from '../../support/passkey-client.js';
import {
  REGISTRATION_FINISH,
  REGISTRATION_START,
  bootPasskeyApp,
  credentialRows,
  enrollInvitee,
  errorOf,
  expectCeremonyRejected,
  finish,
  organizationOf,
  registrationAttempt,
  rowsOf,
  seedSession,
  seedUser,
  sessionRow,
  setCookiesOf,
  type PasskeyUser,
} from './passkey-fixtures.js';
import {
  challengeCount,
  register,
  registerKeepingSession,
  registeredSources,
  signInSession,
} from './registration-gate-fixtures.js';

describe('passkey registration gate (identity-http §4.3) under invitation_only', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;

  beforeAll(async () => {
    identity = await bootPasskeyApp();
    const restricted = await bootstrapOwner(identity);
    const authenticator = new SoftwareAuthenticator();
    await register(identity, restricted, authenticator);
    owner = {
      userId: restricted.userId,
      authenticator,
      credentialId: authenticator.credentials()[0]!.credentialId,
      session: await signInSession(identity, authenticator),
    };
  });
  afterAll(async () => identity?.close());

  describe('full sessions', () => {
    it('lets a passkey session register within 5 minutes of authentication (STEP): {passkey} only, session unchanged', async () => {
      const session = await signInSession(identity, owner.authenticator, owner.credentialId);
      identity.clock.advance({ minutes: 5 });
      const before = await registeredSources(identity, owner.userId);
      await registerKeepingSession(identity, session);
      expect(await registeredSources(identity, owner.userId)).toEqual([...before, 'existing_account'].sort());
    });

    it('lets a step-up session register', async () => {
      const session = await signInSession(identity, owner.authenticator, owner.credentialId);
      identity.clock.advance({ minutes: 20 });
      const stepped = await stepUp(identity, session, owner.authenticator);
      expect(stepped.body.assurance).toBe('step_up');
      await registerKeepingSession(identity, sessionOf(stepped));
    });

    it('refuses a stale passkey session with 403 step_up_required and starts no ceremony', async () => {
      const session = await signInSession(identity, owner.authenticator, owner.credentialId);
      identity.clock.advance({ minutes: 5, milliseconds: 1 });
      const challenges = await challengeCount(identity, owner.userId);
      const res = await post(identity, REGISTRATION_START, session);
      expect(errorOf(res)).toEqual({
        status: 403,
        code: 'step_up_required',
        message: 'Recent passkey verification is required',
        retryable: false,
      });
      expect(setCookiesOf(res).some((cookie) => cookie.startsWith('__Host-tessera_ceremony='))).toBe(false);
      expect(await challengeCount(identity, owner.userId)).toBe(challenges);
    });

    it('re-checks STEP at finish: a session that went stale during the ceremony is refused and the ceremony fails', async () => {
      const session = await signInSession(identity, owner.authenticator, owner.credentialId);
      const before = (await credentialRows(identity, owner.userId)).length;
      identity.clock.advance({ minutes: 4 });
      const started = await registrationAttempt(identity, session, new SoftwareAuthenticator());
      identity.clock.advance({ minutes: 1, milliseconds: 1 });
      const res = await finish(identity, REGISTRATION_FINISH, started.body, { session, cookies: [started.cookie] });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 403,
        code: 'step_up_required',
        failureReason: 'step_up_required',
      });
      expect(await credentialRows(identity, owner.userId)).toHaveLength(before);
    });

    it('lets a federated session enrol its first passkey within 5 minutes (FED1): {passkey} only, session stays federated', async () => {
      const userId = await seedUser(identity);
      const federated = await seedSession(identity, userId, 'oidc');
      identity.clock.advance({ minutes: 4, seconds: 59, milliseconds: 999 });
      const authenticator = new SoftwareAuthenticator();
      await registerKeepingSession(identity, federated, authenticator);
      const row = await sessionRow(identity, federated.sessionId);
      expect([row['authentication_method'], row['assurance']]).toEqual(['oidc', 'session']);
      expect(await registeredSources(identity, userId)).toEqual(['federated_first_passkey']);
      // The passkey now exists: a second FED1 registration is refused, step-up is possible.
      const again = await post(identity, REGISTRATION_START, federated);
      expect(errorOf(again)).toMatchObject({ status: 403, code: 'step_up_required' });
      const stepped = await stepUp(identity, federated, authenticator);
      expect(stepped.status).toBe(200);
      expect(stepped.body.assurance).toBe('step_up');
    });

    it('refuses a federated session 5 minutes after authentication (FED1 is strictly less than 5 minutes)', async () => {
      const userId = await seedUser(identity);
      const federated = await seedSession(identity, userId, 'oidc');
      identity.clock.advance({ minutes: 5 });
      const res = await post(identity, REGISTRATION_START, federated);
      expect(errorOf(res)).toMatchObject({ status: 403, code: 'step_up_required' });
      expect(await challengeCount(identity, userId)).toBe(0);
    });

    it('re-checks FED1 at finish: a federated ceremony finished after the window fails', async () => {
      const userId = await seedUser(identity);
      const federated = await seedSession(identity, userId, 'oidc');
      identity.clock.advance({ minutes: 3 });
      const started = await registrationAttempt(identity, federated, new SoftwareAuthenticator());
      identity.clock.advance({ minutes: 2 });
      const res = await finish(identity, REGISTRATION_FINISH, started.body, {
        session: federated,
        cookies: [started.cookie],
      });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 403,
        code: 'step_up_required',
        failureReason: 'step_up_required',
      });
      expect(await credentialRows(identity, userId)).toHaveLength(0);
    });

    it.each(['active', 'suspended', 'suspected_clone'])(
      'refuses FED1 when the user already holds a passkey in state %s',
      async (state) => {
        const userId = await seedUser(identity);
        const first = await seedSession(identity, userId, 'oidc');
        expect((await register(identity, first)).status).toBe(200);
        await rowsOf(identity).sql('update tessera_identity.credentials set state = ? where user_id = ?', [
          state,
          userId,
        ]);
        const federated = await seedSession(identity, userId, 'oidc');
        const res = await post(identity, REGISTRATION_START, federated);
        expect(errorOf(res)).toMatchObject({ status: 403, code: 'step_up_required' });
      },
    );

    it('allows FED1 again when every passkey of the user is revoked', async () => {
      const userId = await seedUser(identity);
      const first = await seedSession(identity, userId, 'oidc');
      expect((await register(identity, first)).status).toBe(200);
      await rowsOf(identity).sql(
        `update tessera_identity.credentials set state = 'revoked', revoked_at = updated_at where user_id = ?`,
        [userId],
      );
      const federated = await seedSession(identity, userId, 'oidc');
      expect((await register(identity, federated)).status).toBe(200);
      expect(await credentialRows(identity, userId)).toHaveLength(2);
    });
  });
});

describe('passkey registration gate under registrationPolicy admin_only', () => {
  let identity: IdentityTestApp;
  let ownerId: string;
  let organizationId: string;

  beforeAll(async () => {
    identity = await bootPasskeyApp({ registrationPolicy: 'admin_only' });
    const restricted = await bootstrapOwner(identity);
    ownerId = restricted.userId;
    organizationId = await organizationOf(identity, ownerId);
    // Bootstrap works under every policy.
    expect((await register(identity, restricted)).status).toBe(200);
  });
  afterAll(async () => identity?.close());

  const dropIssuer = (userId: string) =>
    rowsOf(identity).sql(
      'update tessera_identity.invitations set invited_by_user_id = null where accepted_by_user_id = ?',
      [userId],
    );

  it('lets an invitation with an issuing user enrol', async () => {
    const invitee = await enrollInvitee(identity, organizationId, ownerId);
    const res = await register(identity, invitee);
    expect(res.status).toBe(200);
    expect(await registeredSources(identity, invitee.userId)).toEqual(['admin_invitation']);
  });

  it('refuses an invitation without an issuing user with 403 registration_not_allowed', async () => {
    const invitee = await enrollInvitee(identity, organizationId, ownerId);
    await dropIssuer(invitee.userId);
    const res = await post(identity, REGISTRATION_START, invitee);
    expect(errorOf(res)).toEqual({
      status: 403,
      code: 'registration_not_allowed',
      message: 'Registration is not available',
      retryable: false,
    });
    expect(await challengeCount(identity, invitee.userId)).toBe(0);
  });

  it('re-checks the policy at finish: the ceremony fails, audited registration_policy_rejected', async () => {
    const invitee = await enrollInvitee(identity, organizationId, ownerId);
    const started = await registrationAttempt(identity, invitee, new SoftwareAuthenticator());
    await dropIssuer(invitee.userId);
    const res = await finish(identity, REGISTRATION_FINISH, started.body, {
      session: invitee,
      cookies: [started.cookie],
    });
    await expectCeremonyRejected(identity, res, started.ceremonyId, {
      status: 403,
      code: 'registration_not_allowed',
      failureReason: 'registration_not_allowed',
      auditReason: 'registration_policy_rejected',
    });
    expect(await credentialRows(identity, invitee.userId)).toHaveLength(0);
    expect((await sessionRow(identity, invitee.sessionId))['state']).toBe('active');
  });
});

describe('passkey registration gate under registrationPolicy disabled', () => {
  let identity: IdentityTestApp;
  let ownerId: string;

  beforeAll(async () => {
    identity = await bootPasskeyApp({ registrationPolicy: 'disabled' });
    const restricted = await bootstrapOwner(identity);
    ownerId = restricted.userId;
    // Bootstrap works under every policy.
    expect((await register(identity, restricted)).status).toBe(200);
  });
  afterAll(async () => identity?.close());

  it('refuses an invitation session with 403 registration_not_allowed', async () => {
    const userId = await seedUser(identity);
    const invitation = await seedSession(identity, userId, 'invitation');
    const res = await post(identity, REGISTRATION_START, invitation);
    expect(errorOf(res)).toMatchObject({ status: 403, code: 'registration_not_allowed' });
    expect(await challengeCount(identity, userId)).toBe(0);
  });

  it('still lets a recovery session enrol a replacement passkey', async () => {
    const recovery = await seedSession(identity, ownerId, 'recovery_code');
    const res = await register(identity, recovery);
    expect(res.status).toBe(200);
    expect(res.body.replacementRecoveryCodes).toHaveLength(10);
    expect(await registeredSources(identity, ownerId)).toEqual(['bootstrap', 'recovery']);
  });
});
