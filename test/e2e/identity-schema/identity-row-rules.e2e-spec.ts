/** Cross-column and cross-row rules: sessions, partial unique indexes, device grants, lifecycle rows. */
import { describe, expect, it } from '@jest/globals';
import { CONSTRAINTS_SUITE, useConstraintsDatabase } from './identity-constraints.support.js';
import { failure, inRollback, storageKey, uuidV7 } from './identity-rows.fixture.js';

const DAY = 86_400_000;

/** Runs on embedded PGlite, or on a fresh database of the DATABASE_URL server when it is set. */
describe(CONSTRAINTS_SUITE, () => {
  const db = useConstraintsDatabase();

  describe('sessions', () => {
    const allowed: Record<string, string[]> = {
      passkey: ['passkey', 'step_up'],
      recovery_code: ['recovery'],
      administrative_recovery: ['recovery'],
      bootstrap: ['recovery'],
      invitation: ['recovery'],
      oidc: ['session'],
      saml: ['session'],
    };
    const matrix = Object.keys(allowed).flatMap((method) =>
      ['recovery', 'session', 'passkey', 'step_up'].map((assurance) => [method, assurance] as const),
    );

    it.each(matrix)('pairs method %s with assurance %s only as the model table allows', async (method, assurance) => {
      const error = await inRollback(db.orm, async (rows) => {
        const federated = method === 'oidc' || method === 'saml';
        const over = federated ? await rows.federation() : {};
        return failure(() => rows.sessions({ ...over, authentication_method: method, assurance }));
      });
      if (allowed[method]!.includes(assurance)) expect(error).toBeUndefined();
      else expect(error).toMatchObject({ code: '23514', constraint: 'sessions_method_assurance_check' });
    });

    it('accepts idle expiry equal to absolute expiry and a rotated session pointing at its successor', async () => {
      const error = await inRollback(db.orm, async (rows) => {
        const successor = await rows.sessions({ idle_expires_at: rows.at(DAY), absolute_expires_at: rows.at(DAY) });
        return failure(() =>
          rows.sessions({ user_id: successor.user_id, state: 'rotated', rotated_to_id: successor.id }),
        );
      });
      expect(error).toBeUndefined();
    });

    it('keeps CSRF digests apart by key version, treating a missing version as its own value', async () => {
      const error = await inRollback(db.orm, async (rows) => {
        const first = await rows.sessions({ csrf_digest_key_version: '1' });
        await rows.sessions({ csrf_digest_encoded: first.csrf_digest_encoded, csrf_digest_key_version: '2' });
        return failure(() =>
          rows.sessions({ csrf_digest_encoded: first.csrf_digest_encoded, csrf_digest_key_version: null }),
        );
      });
      expect(error).toBeUndefined();
    });

    it('accepts federated sessions of both protocols only with the full provenance', async () => {
      const error = await inRollback(db.orm, async (rows) => {
        await rows.sessions(await rows.federation());
        return failure(async () =>
          rows.sessions(
            await rows.federation({ authentication_method: 'saml', federation_provider_key: storageKey('saml') }),
          ),
        );
      });
      expect(error).toBeUndefined();
    });
  });

  describe('partial unique indexes', () => {
    it('allows one pending invitation per organization and email, next to revoked, accepted and expired ones', async () => {
      const outcome = await inRollback(db.orm, async (rows) => {
        const organization = await rows.organizations();
        const accepter = await rows.users();
        const email = 'Carol@Example.test';
        const base = { organization_id: organization.id, email };
        await rows.invitations({ ...base, state: 'revoked', revoked_at: rows.now });
        await rows.invitations({ ...base, state: 'accepted', accepted_at: rows.now, accepted_by_user_id: accepter.id });
        await rows.invitations({ ...base, state: 'expired' });
        await rows.invitations({ ...base, state: 'pending' });
        await rows.invitations({ email, state: 'pending' });
        return failure(() => rows.invitations({ ...base, email: 'carol@example.TEST', state: 'pending' }));
      });
      expect(outcome).toMatchObject({ code: '23505', constraint: 'invitations_pending_email_unique' });
    });

    it('allows any number of users without a primary email', async () => {
      const error = await inRollback(db.orm, async (rows) => {
        await rows.users({ primary_email: null });
        return failure(() => rows.users({ primary_email: null }));
      });
      expect(error).toBeUndefined();
    });

    it('frees a SCIM group name and external id once the group is deleted', async () => {
      const error = await inRollback(db.orm, async (rows) => {
        const deleted = await rows.scimGroups({ display_name: 'Editors', external_id: 'g-1', state: 'deleted' });
        const base = { organization_id: deleted.organization_id, provider: deleted.provider };
        await rows.scimGroups({ ...base, display_name: 'editors', external_id: 'g-1' });
        return failure(() => rows.scimGroups({ ...base, display_name: 'Writers', external_id: null }));
      });
      expect(error).toBeUndefined();
    });
  });

  describe('device grants', () => {
    it('accepts polling intervals 5 and 300 and rejects 301', async () => {
      const outcome = await inRollback(db.orm, async (rows) => {
        await rows.deviceGrants({ interval_seconds: 5 });
        await rows.deviceGrants({ interval_seconds: 300 });
        return failure(() => rows.deviceGrants({ interval_seconds: 301 }));
      });
      expect(outcome).toMatchObject({ code: '23514', constraint: 'device_grants_interval_seconds_check' });
    });

    it.each([
      ['pending', false, true],
      ['denied', false, true],
      ['authorized', true, true],
      ['consumed', true, true],
      ['cancelled', false, true],
      ['cancelled', true, true],
      ['expired', false, true],
      ['expired', true, true],
      ['authorized', false, false],
      ['consumed', false, false],
      ['pending', true, false],
      ['denied', true, false],
    ] as const)('a %s grant with binding=%s is accepted: %s', async (state, bound, accepted) => {
      const error = await inRollback(db.orm, async (rows) => {
        const binding = bound ? await rows.grantBinding() : {};
        return failure(() => rows.deviceGrants({ ...binding, state }));
      });
      if (accepted) expect(error).toBeUndefined();
      else expect(error).toMatchObject({ code: '23514', constraint: 'device_grants_binding_state_check' });
    });

    it('shares one digest namespace between device and user codes', async () => {
      const error = await inRollback(db.orm, async (rows) => {
        const reservation = await rows.deviceGrantDigestReservations({ kind: 'device' });
        return failure(() =>
          rows.deviceGrantDigestReservations({ kind: 'user', digest_encoded: reservation.digest_encoded }),
        );
      });
      expect(error).toMatchObject({ code: '23505', constraint: 'device_grant_digest_reservations_pkey' });
    });
  });

  describe('lifecycle rows', () => {
    it('accepts the terminal rows the state machines write', async () => {
      const error = await inRollback(db.orm, async (rows) =>
        failure(async () => {
          const user = await rows.users();
          await rows.organizations({ state: 'deleted', deleted_at: rows.now });
          await rows.memberships({ user_id: user.id, state: 'removed', removed_at: rows.now });
          await rows.sessions({ user_id: user.id, state: 'revoked', revoked_at: rows.now, revoked_reason: 'logout' });
          await rows.credentials({ user_id: user.id, state: 'suspected_clone', sign_count: 4294967295 });
          const successor = await rows.serviceCredentials();
          await rows.serviceCredentials({
            service_identity_id: successor.service_identity_id,
            state: 'revoked',
            rotated_at: rows.now,
            rotated_to_id: successor.id,
            revoked_at: rows.now,
          });
          await rows.serviceIdentities({ state: 'revoked', revoked_at: rows.now });
          await rows.ticket({ user_id: user.id, activated_at: rows.now, state: 'consumed' });
          await rows.challenges({ state: 'failed', failure_reason: 'administrator_cancelled' });
          await rows.recoveryCodes({ user_id: user.id, state: 'consumed', consumed_at: rows.now, generation: 3 });
          const next = await rows.deviceRefreshTokens();
          await rows.deviceRefreshTokens({
            family_id: next.family_id,
            rotation_counter: 1,
            state: 'rotated',
            rotated_to_id: next.id,
            consumed_at: rows.now,
          });
          await rows.deviceTokenFamilies({
            state: 'revoked',
            revoked_at: rows.now,
            revoked_reason: 'refresh_token_replay',
          });
          await rows.federationProviderControls({
            state: 'disabled',
            session_epoch: 1,
            disabled_at: rows.now,
            updated_at: rows.now,
            disabled_reason: 'incident',
          });
          await rows.federationTransactions({
            kind: 'saml',
            storage_key: storageKey('saml'),
            pkce_verifier_ciphertext: null,
            nonce_digest: null,
            request_id_ciphertext: Buffer.from('encrypted request id'),
          });
          const organization = await rows.organizations();
          const serviceIdentity = await rows.serviceIdentities({ organization_id: organization.id });
          await rows.auditEvents({
            actor_type: 'service',
            actor_service_identity_id: serviceIdentity.id,
            organization_id: organization.id,
            target_type: 'federation_provider',
            target_id: storageKey('oidc'),
            ...rows.auditRequest(),
          });
          await rows.auditEvents({
            actor_type: 'user',
            actor_user_id: user.id,
            action: 'session.revoked',
            target_type: 'session',
            target_id: uuidV7(),
            outcome: 'denied',
            reason_code: 'session_revoked',
            ...rows.auditRequest({ request_user_agent: null, request_client_ip_digest: null }),
          });
          await rows.auditEvents({ actor_type: 'anonymous', action: 'webauthn.ceremony_rejected', outcome: 'failed' });
        }),
      );
      expect(error).toBeUndefined();
    });
  });
});
