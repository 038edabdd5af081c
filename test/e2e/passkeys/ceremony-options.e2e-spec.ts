import { describe, it, expect } from '@jest/globals';
import { Buffer } from 'node:buffer';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post, registerPasskey } from '../../support/passkey-client.js';
import {
  REGISTRATION_START,
  SIGN_IN_START,
  STEP_UP_START,
  credentialRows,
  enrollInvitee,
  errorOf,
  freshSession,
  inviteeWithPasskey,
  rowsOf,
  seedSession,
  seedUser,
  setCookiesOf,
  type PasskeyUser,
} from './passkey-fixtures.js';
import { usePasskeySuite } from './passkey-suite.support.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('ceremony cookies, WebAuthn options and session rotation (identity-http §4.6, §9.1)', () => {
  let identity: IdentityTestApp;
  let owner: PasskeyUser;
  let organizationId: string;
  usePasskeySuite((suite) => ({ identity, owner, organizationId } = suite));

  describe('WebAuthn options', () => {
    it('offers registration options exactly as identity-http §4.6', async () => {
      const session = await freshSession(identity, owner);
      const res = await post(identity, REGISTRATION_START, session);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['ceremonyId', 'publicKey']);
      expect(res.body.ceremonyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const credentials = await credentialRows(identity, owner.userId);
      expect(res.body.publicKey).toEqual({
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        rp: { id: 'localhost', name: 'Tessera test' },
        user: { id: b64(owner.userId), name: 'ada@example.com', displayName: 'Ada Lovelace' },
        pubKeyCredParams: [
          { type: 'public-key', alg: -7 },
          { type: 'public-key', alg: -8 },
          { type: 'public-key', alg: -257 },
        ],
        timeout: 300000,
        excludeCredentials: credentials
          .map((row) => String(row['web_authn_id']))
          .sort()
          .map((id) => ({ type: 'public-key', id, transports: ['internal'] })),
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
        attestation: 'none',
        extensions: { credProps: true },
        hints: [],
      });
    });

    it('excludes exactly the non-revoked passkeys, sorted by credential id, with their transports', async () => {
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId);
      for (const transports of [['usb', 'nfc'], ['hybrid'], ['smart-card', 'ble']]) {
        const res = await registerPasskey(
          identity,
          await freshSession(identity, user),
          new SoftwareAuthenticator({ transports }),
        );
        expect(res.status).toBe(200);
      }
      // The passkey the user signs in with stays active; the three others change state.
      const all = await credentialRows(identity, user.userId);
      const rows = all.filter((row) => row['web_authn_id'] !== user.credentialId);
      const states = ['revoked', 'suspended', 'suspected_clone'];
      for (const [index, state] of states.entries()) {
        await rowsOf(identity).sql(
          `update tessera_identity.credentials set state = ?, revoked_at = case when ? = 'revoked' then updated_at end where id = ?`,
          [state, state, rows[index]!['id']],
        );
      }
      const res = await post(identity, REGISTRATION_START, await freshSession(identity, user));
      const expected = all
        .filter((row) => row['id'] !== rows[0]!['id'])
        .map((row) => ({ type: 'public-key', id: String(row['web_authn_id']), transports: row['transports'] }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(res.body.publicKey.excludeCredentials).toEqual(expected);
    });

    it('names the user by id when the email exceeds 64 bytes and cuts the display name to 64 UTF-8 bytes', async () => {
      const email = `${'a'.repeat(60)}@example.com`;
      const invitee = await enrollInvitee(identity, organizationId, owner.userId, email, 'é'.repeat(40));
      const res = await post(identity, REGISTRATION_START, invitee);
      expect(res.body.publicKey.user).toEqual({
        id: b64(invitee.userId),
        name: invitee.userId,
        displayName: 'é'.repeat(32),
      });
    });

    it('offers username-free sign-in options exactly as identity-http §4.6', async () => {
      const res = await post(identity, SIGN_IN_START);
      expect(res.status).toBe(200);
      expect(res.body.publicKey).toEqual({
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        timeout: 300000,
        rpId: 'localhost',
        allowCredentials: [],
        userVerification: 'required',
        hints: [],
      });
    });

    it('offers step-up over exactly the user’s active passkeys', async () => {
      const user = await inviteeWithPasskey(identity, organizationId, owner.userId);
      for (let i = 0; i < 3; i++) {
        expect(
          (await registerPasskey(identity, await freshSession(identity, user), new SoftwareAuthenticator())).status,
        ).toBe(200);
      }
      const all = await credentialRows(identity, user.userId);
      const rows = all.filter((row) => row['web_authn_id'] !== user.credentialId);
      await rowsOf(identity).sql(`update tessera_identity.credentials set state = 'suspended' where id = ?`, [
        rows[0]!['id'],
      ]);
      await rowsOf(identity).sql(
        `update tessera_identity.credentials set state = 'revoked', revoked_at = updated_at where id = ?`,
        [rows[1]!['id']],
      );
      const res = await post(identity, STEP_UP_START, await freshSession(identity, user));
      expect(res.status).toBe(200);
      const { allowCredentials, ...rest } = res.body.publicKey;
      expect(rest).toEqual({
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        timeout: 300000,
        rpId: 'localhost',
        userVerification: 'required',
        hints: [],
      });
      expect(new Set((allowCredentials as { id: string }[]).map((d) => JSON.stringify(d)))).toEqual(
        new Set(
          all
            .filter((row) => row['id'] !== rows[0]!['id'] && row['id'] !== rows[1]!['id'])
            .map((row) => JSON.stringify({ id: row['web_authn_id'], transports: ['internal'], type: 'public-key' })),
        ),
      );
      expect(allowCredentials).toHaveLength(2);
    });

    it('refuses step-up start with 401 invalid_credentials when the user has no active passkey', async () => {
      const userId = await seedUser(identity);
      const federated = await seedSession(identity, userId, 'oidc');
      const res = await post(identity, STEP_UP_START, federated);
      expect(errorOf(res)).toMatchObject({ status: 401, code: 'invalid_credentials' });
      expect(setCookiesOf(res).some((cookie) => cookie.startsWith('__Host-tessera_ceremony='))).toBe(false);
      expect(await rowsOf(identity).count('challenges', 'user_id = ?', [userId])).toBe(0);
    });
  });
});
