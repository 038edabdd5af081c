import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import request from 'supertest';
import type { Response } from 'supertest';
import { SoftwareAuthenticator, testUuidV7 } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { TEST_ORIGIN } from '../../support/identity-app.js';
import { bootstrapOwner, post, type TestSession } from '../../support/passkey-client.js';
import {
  CLEARED_CEREMONY_COOKIE,
  REGISTRATION_FINISH,
  REGISTRATION_START,
  SIGN_IN_FINISH,
  SIGN_IN_START,
  STEP_UP_FINISH,
  STEP_UP_START,
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
  userEpoch,
  type PasskeyUser,
} from './passkey-fixtures.js';
import {
  challengeCount,
  inviteeWithCodes,
  register,
  registeredSources,
  signInSession,
} from './registration-gate-fixtures.js';
import { RECOVERY_CODE, recoveryCodeDigest } from '../recovery/recovery-e2e.support.js';

const CLEARED_SESSION_COOKIE = /^__Host-tessera_session=; Max-Age=0;/;

describe('passkey registration gate (identity-http §4.3) under invitation_only', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;
  let organizationId: string;
  /** The bootstrap enrollment every other test builds on, with what it must have changed. */
  let bootstrap: {
    res: Response;
    restricted: TestSession;
    others: TestSession[];
    epochBefore: number;
  };

  beforeAll(async () => {
    identity = await bootPasskeyApp();
    const restricted = await bootstrapOwner(identity);
    const others = [
      await seedSession(identity, restricted.userId, 'recovery_code'),
      await seedSession(identity, restricted.userId, 'passkey'),
    ];
    const epochBefore = await userEpoch(identity, restricted.userId);
    const authenticator = new SoftwareAuthenticator();
    const res = await register(identity, restricted, authenticator);
    bootstrap = { res, restricted, others, epochBefore };
    owner = {
      userId: restricted.userId,
      authenticator,
      credentialId: authenticator.credentials()[0]!.credentialId,
      session: await signInSession(identity, authenticator),
    };
    organizationId = await organizationOf(identity, restricted.userId);
  });
  afterAll(async () => identity?.close());

  describe('restricted sessions (RSTR)', () => {
    it('completes a bootstrap enrollment: passkey, 10 distinct codes, every session revoked, epoch advanced, cookie cleared', async () => {
      const { res, restricted, others, epochBefore } = bootstrap;
      const userId = restricted.userId;
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['passkey', 'replacementRecoveryCodes']);
      const codes = res.body.replacementRecoveryCodes as string[];
      expect(codes).toHaveLength(10);
      expect(new Set(codes).size).toBe(10);
      for (const code of codes) expect(code).toMatch(RECOVERY_CODE);
      const cookies = setCookiesOf(res);
      expect(cookies.filter((cookie) => CLEARED_SESSION_COOKIE.test(cookie))).toHaveLength(1);
      expect(cookies).toContain(CLEARED_CEREMONY_COOKIE);

      expect(await userEpoch(identity, userId)).toBe(epochBefore + 1);
      const sessions = await rowsOf(identity).sql(
        `select id, state, revoked_reason from tessera_identity.sessions where id in (?, ?, ?) order by id`,
        [restricted.sessionId, ...others.map((other) => other.sessionId)],
      );
      expect(sessions).toEqual(
        [restricted.sessionId, ...others.map((other) => other.sessionId)]
          .sort()
          .map((id) => ({ id, state: 'revoked', revoked_reason: 'recovery_enrollment_completed' })),
      );
      const stored = await rowsOf(identity).sql(
        `select public_selector, secret_digest_encoded, state from tessera_identity.recovery_codes where user_id = ?`,
        [userId],
      );
      expect(stored).toHaveLength(10);
      expect(new Set(stored.map((row) => row['secret_digest_encoded']))).toEqual(
        new Set(codes.map((code) => recoveryCodeDigest(identity, code))),
      );
      expect(stored.every((row) => row['state'] === 'active' && row['public_selector'] === null)).toBe(true);
      expect(JSON.stringify(stored)).not.toContain(codes[0]!.replaceAll('-', ''));
      expect((await registeredSources(identity, userId)).filter((source) => source === 'bootstrap')).toHaveLength(1);
      const completed = await rowsOf(identity).count(
        'audit_events',
        `action = 'recovery.enrollment_completed' and actor_user_id = ? and reason_code = 'bootstrap'`,
        [userId],
      );
      expect(completed).toBe(1);

      for (const old of [restricted, others[1]!]) {
        const logout = await post(identity, '/identity/v1/logout', old);
        expect(errorOf(logout)).toMatchObject({ status: 401, code: 'session_revoked' });
      }
    });

    it('lets an invitation session enrol its first passkey (source admin_invitation)', async () => {
      const invitee = await enrollInvitee(identity, organizationId, owner.userId);
      const res = await register(identity, invitee);
      expect(res.status).toBe(200);
      expect(res.body.replacementRecoveryCodes).toHaveLength(10);
      expect(await registeredSources(identity, invitee.userId)).toEqual(['admin_invitation']);
      expect((await sessionRow(identity, invitee.sessionId))['state']).toBe('revoked');
    });

    it.each(['recovery_code', 'administrative_recovery'] as const)(
      'lets a %s session enrol a replacement passkey (source recovery)',
      async (method) => {
        const user = await inviteeWithCodes(identity, organizationId, owner.userId);
        const recovery = await seedSession(identity, user.userId, method);
        const res = await register(identity, recovery);
        expect(res.status).toBe(200);
        expect(res.body.replacementRecoveryCodes).toHaveLength(10);
        expect(await registeredSources(identity, user.userId)).toEqual(['admin_invitation', 'recovery']);
        const generations = await rowsOf(identity).sql(
          `select generation, state, count(*)::int as n from tessera_identity.recovery_codes
            where user_id = ? group by generation, state order by generation`,
          [user.userId],
        );
        expect(generations.map((row) => [row['state'], row['n']])).toEqual([
          ['revoked', 10],
          ['active', 10],
        ]);
        expect(await credentialRows(identity, user.userId)).toHaveLength(2);
      },
    );

    it('refuses anonymous callers with 401 authentication_required on start and finish', async () => {
      const start = await post(identity, REGISTRATION_START);
      expect(errorOf(start)).toEqual({
        status: 401,
        code: 'authentication_required',
        message: 'Authentication is required',
        retryable: false,
      });
      expect(setCookiesOf(start).some((cookie) => cookie.startsWith('__Host-tessera_ceremony='))).toBe(false);
      const finished = await post(identity, REGISTRATION_FINISH).send({
        ceremonyId: testUuidV7(),
        credentialName: 'x',
      });
      expect(errorOf(finished)).toMatchObject({ status: 401, code: 'authentication_required' });
    });

    it('binds the registration to the user who started it (user B cannot finish user A’s ceremony)', async () => {
      const alice = await enrollInvitee(identity, organizationId, owner.userId);
      const bob = await enrollInvitee(identity, organizationId, owner.userId);
      const started = await registrationAttempt(identity, alice, new SoftwareAuthenticator());
      const res = await finish(identity, REGISTRATION_FINISH, started.body, {
        session: bob,
        cookies: [started.cookie],
      });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'registration_binding_mismatch',
      });
      expect(await credentialRows(identity, alice.userId)).toHaveLength(0);
      expect(await credentialRows(identity, bob.userId)).toHaveLength(0);
      expect((await sessionRow(identity, alice.sessionId))['state']).toBe('active');
      expect((await sessionRow(identity, bob.sessionId))['state']).toBe('active');
    });

    it('binds the registration source into the challenge: started in a passkey session, finished in a recovery session → rejected', async () => {
      const user = await inviteeWithCodes(identity, organizationId, owner.userId);
      const full = await seedSession(identity, user.userId, 'passkey');
      const started = await registrationAttempt(identity, full, new SoftwareAuthenticator());
      const recovery = await seedSession(identity, user.userId, 'recovery_code');
      const res = await finish(identity, REGISTRATION_FINISH, started.body, {
        session: recovery,
        cookies: [started.cookie],
      });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'registration_binding_mismatch',
      });
      expect(await credentialRows(identity, user.userId)).toHaveLength(1);
      expect((await sessionRow(identity, recovery.sessionId))['state']).toBe('active');
    });

    it('binds the registration source into the challenge: started under FED1, finished in a passkey session → rejected', async () => {
      const userId = await seedUser(identity);
      const federated = await seedSession(identity, userId, 'oidc');
      const started = await registrationAttempt(identity, federated, new SoftwareAuthenticator());
      const full = await seedSession(identity, userId, 'passkey');
      const res = await finish(identity, REGISTRATION_FINISH, started.body, {
        session: full,
        cookies: [started.cookie],
      });
      await expectCeremonyRejected(identity, res, started.ceremonyId, {
        status: 401,
        code: 'invalid_credentials',
        failureReason: 'registration_binding_mismatch',
      });
      expect(await credentialRows(identity, userId)).toHaveLength(0);
    });
  });

  describe('restricted-session allow-list (identity-http §2 stage 7)', () => {
    const id = () => testUuidV7();
    const ROUTES: readonly [method: 'get' | 'post' | 'patch' | 'delete', path: () => string, body?: object][] = [
      ['get', () => '/identity/v1/me'],
      ['get', () => '/identity/v1/sessions'],
      ['delete', () => `/identity/v1/sessions/${id()}`],
      ['post', () => '/identity/v1/sessions/revoke-others'],
      ['post', () => '/identity/v1/sessions/revoke-all'],
      ['get', () => '/identity/v1/passkeys'],
      ['patch', () => `/identity/v1/passkeys/${id()}`, { name: 'Phone' }],
      ['delete', () => `/identity/v1/passkeys/${id()}`],
      ['post', () => '/identity/v1/recovery/codes/replace', {}],
      ['post', () => STEP_UP_START],
      ['post', () => STEP_UP_FINISH, { ceremonyId: id() }],
      ['post', () => SIGN_IN_START],
      ['post', () => SIGN_IN_FINISH, { ceremonyId: id() }],
      ['post', () => '/identity/v1/recovery/codes/use', { code: `${'A'.repeat(11)}.${'B'.repeat(22)}` }],
      ['post', () => '/identity/v1/invitations/enroll', { token: 'x'.repeat(43), displayName: 'Mallory' }],
      ['post', () => '/identity/v1/bootstrap', {}],
      ['get', () => '/identity/v1/client-config'],
    ];

    function call(session: TestSession, method: string, path: string, body?: object) {
      const http = request(identity.app.getHttpServer());
      let req = (http as unknown as Record<string, (path: string) => request.Test>)[method]!(path)
        .set('cookie', session.cookie)
        .set('origin', TEST_ORIGIN)
        .set('x-csrf-token', session.csrfToken);
      if (body !== undefined) req = req.send(body) as request.Test;
      return req;
    }

    it.each(ROUTES.map(([method, path, body]) => [method.toUpperCase(), path(), method, body] as const))(
      'answers %s %s in a restricted session with 401 authentication_required',
      async (_label, path, method, body) => {
        const restricted = await enrollInvitee(identity, organizationId, owner.userId);
        const challenges = await challengeCount(identity, restricted.userId);
        const sessions = await rowsOf(identity).count('sessions');
        const res = await call(restricted, method, path, body);
        expect(errorOf(res)).toEqual({
          status: 401,
          code: 'authentication_required',
          message: 'Authentication is required',
          retryable: false,
        });
        expect(await challengeCount(identity, restricted.userId)).toBe(challenges);
        expect(await rowsOf(identity).count('sessions')).toBe(sessions);
        expect((await sessionRow(identity, restricted.sessionId))['state']).toBe('active');
      },
    );

    it('lets a restricted session call registration start and logout', async () => {
      const restricted = await enrollInvitee(identity, organizationId, owner.userId);
      const start = await post(identity, REGISTRATION_START, restricted);
      expect(start.status).toBe(200);
      const logout = await post(identity, '/identity/v1/logout', restricted);
      expect(logout.status).toBe(200);
      expect((await sessionRow(identity, restricted.sessionId))['state']).toBe('revoked');
    });
  });
});
