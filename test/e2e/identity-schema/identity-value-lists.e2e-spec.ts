/** The state and value lists of the identity schema's CHECKs are exactly those of the identity model. */
import { describe, expect, it } from '@jest/globals';
import { IDENTITY_SCHEMA } from '../../../libs/identity-mikro-orm/src/schema/identity-schema.values.js';
import { CONSTRAINTS_SUITE, useConstraintsDatabase } from './identity-constraints.support.js';
import { failure, inRollback } from './identity-rows.fixture.js';

/** Runs on embedded PGlite, or on a fresh database of the DATABASE_URL server when it is set. */
describe(CONSTRAINTS_SUITE, () => {
  const db = useConstraintsDatabase();
  const { sql } = db;

  describe('state and value lists are exactly those of the identity model', () => {
    const lists: [string, string, string[]][] = [
      ['environment', 'environment', ['development', 'test', 'staging', 'production']],
      ['bootstrap_receipts', 'digest_algorithm', ['sha256']],
      ['users', 'state', ['pending', 'active', 'suspended', 'deactivated']],
      ['credentials', 'state', ['active', 'suspended', 'suspected_clone', 'revoked']],
      ['sessions', 'state', ['active', 'rotated', 'revoked', 'expired']],
      ['sessions', 'assurance', ['recovery', 'session', 'passkey', 'step_up']],
      [
        'sessions',
        'authentication_method',
        ['passkey', 'recovery_code', 'administrative_recovery', 'bootstrap', 'invitation', 'oidc', 'saml'],
      ],
      ['sessions', 'token_digest_algorithm', ['hmac-sha256']],
      ['organizations', 'state', ['active', 'suspended', 'deleted']],
      ['memberships', 'role', ['owner', 'admin', 'publisher', 'viewer']],
      ['memberships', 'state', ['active', 'suspended', 'removed']],
      ['invitations', 'role', ['owner', 'admin', 'publisher', 'viewer']],
      ['invitations', 'state', ['pending', 'accepted', 'revoked', 'expired']],
      ['service_identities', 'state', ['active', 'suspended', 'revoked']],
      ['service_credentials', 'state', ['active', 'rotated', 'revoked', 'expired']],
      [
        'challenges',
        'purpose',
        [
          'webauthn_registration',
          'webauthn_authentication',
          'step_up',
          'account_recovery',
          'invitation_acceptance',
          'device_authorization',
          'external_identity_link',
          'service_credential_rotation',
        ],
      ],
      ['challenges', 'state', ['pending', 'consumed', 'failed', 'expired']],
      ['challenges', 'challenge_digest_algorithm', ['sha256', 'hmac-sha256']],
      ['recovery_codes', 'state', ['active', 'consumed', 'revoked', 'expired']],
      ['device_grants', 'state', ['pending', 'authorized', 'denied', 'consumed', 'expired', 'cancelled']],
      ['device_grant_digest_reservations', 'kind', ['device', 'user']],
      ['device_token_families', 'state', ['active', 'revoked', 'expired']],
      ['device_access_tokens', 'state', ['active', 'revoked', 'expired']],
      ['device_refresh_tokens', 'state', ['active', 'rotated', 'revoked', 'expired']],
      ['device_token_credential_reservations', 'kind', ['access', 'refresh']],
      ['external_identities', 'state', ['active', 'suspended', 'unlinked']],
      ['federation_provider_controls', 'kind', ['oidc', 'saml']],
      ['federation_provider_controls', 'state', ['enabled', 'disabled']],
      ['federation_transactions', 'kind', ['oidc', 'saml']],
      ['federation_provider_registrations', 'protocol', ['oidc', 'saml']],
      [
        'federation_provider_registrations',
        'signature_policy',
        ['assertion', 'response', 'both', 'assertion_or_response'],
      ],
      ['audit_events', 'actor_type', ['anonymous', 'user', 'service', 'system']],
      [
        'audit_events',
        'target_type',
        [
          'user',
          'challenge',
          'credential',
          'session',
          'organization',
          'membership',
          'invitation',
          'service_identity',
          'service_credential',
          'device_grant',
          'external_identity',
          'federation_provider',
          'scim_group',
          'scim_connection',
          'scim_user',
        ],
      ],
      ['audit_events', 'outcome', ['succeeded', 'denied', 'failed']],
      ['scim_operations', 'request_method', ['POST', 'PUT', 'PATCH', 'DELETE']],
      ['scim_batch_operations', 'result_resource_type', ['user', 'group']],
      ['scim_groups', 'state', ['active', 'deleted']],
      ['scim_connections', 'state', ['active', 'revoked']],
      ['scim_connection_group_roles', 'match_kind', ['display_name', 'external_id']],
      ['scim_connection_group_roles', 'role', ['admin', 'publisher', 'viewer']],
      ['scim_connection_tokens', 'digest_algorithm', ['hmac-sha256']],
      ['scim_connection_tokens', 'state', ['active', 'rotated', 'revoked']],
      ['scim_users', 'state', ['active', 'deleted']],
    ];

    it.each(lists)('%s.%s allows exactly the listed values', async (table, column, values) => {
      const [row] = await sql(
        `select pg_get_constraintdef(con.oid) as definition from pg_constraint con
          where con.connamespace = ?::regnamespace and con.conname = ?`,
        [IDENTITY_SCHEMA, `${table}_${column}_check`],
      );
      const listed = [...String(row!.definition).matchAll(/'([^']*)'::text/g)].map((match) => match[1]);
      expect(listed).toEqual(values);
    });

    it('accepts every WebAuthn transport, smart-card spelled with its hyphen, and at most 8 entries', async () => {
      const outcome = await inRollback(db.orm, async (rows) => {
        const all = ['usb', 'nfc', 'ble', 'internal', 'hybrid', 'smart-card'];
        await rows.credentials({ transports: all });
        await rows.credentials({ transports: [] });
        return {
          underscore: await failure(() => rows.credentials({ transports: ['smart_card'] })),
        };
      });
      expect(outcome.underscore).toMatchObject({ code: '23514', constraint: 'credentials_transports_check' });
      const nine = await inRollback(db.orm, (rows) =>
        failure(() =>
          rows.credentials({ transports: ['usb', 'usb', 'usb', 'usb', 'usb', 'usb', 'usb', 'usb', 'usb'] }),
        ),
      );
      expect(nine).toMatchObject({ code: '23514', constraint: 'credentials_transports_check' });
    });
  });
});
