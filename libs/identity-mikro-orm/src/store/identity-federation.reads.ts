import type {
  ExternalIdentityRecord,
  FederatedSessionStanding,
  FederationProviderControlRecord,
  FederationProviderEntry,
  FederationRegistrationRecord,
  IdentityFederationReads,
  IdentityFederationRegistryReads,
  MembershipState,
  OrganizationState,
  SessionFederation,
} from '@tessera/identity';
import { isUuid, table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns, prefixedFields } from './identity-row.fields.js';
import { unprefix } from './identity-row.mappers.js';
import {
  FEDERATION_PROVIDER_CONTROL_FIELDS,
  FEDERATION_PROVIDER_REGISTRATION_FIELDS,
} from './identity-federation.fields.js';
import { controlFromRow, externalIdentityFromRow, registrationFromRow } from './identity-federation.rows.js';

const NOTHING: FederatedSessionStanding = { provider: null, organizationState: null, membershipState: null };

/**
 * The provider entries of `organizationId` (all, or the one of `providerId`), sorted by provider
 * id: registration, control (left join) and the count of active links through the storage key, in
 * one statement. Shared by the reads and by the registration commands (inside their transaction).
 */
export async function providerEntries(
  sql: Sql,
  organizationId: string,
  providerId: string | null,
): Promise<FederationProviderEntry[]> {
  const rows = await sql(
    `select ${prefixedFields('r', FEDERATION_PROVIDER_REGISTRATION_FIELDS, 'r_')},
            ${prefixedFields('c', FEDERATION_PROVIDER_CONTROL_FIELDS, 'c_')},
            (select count(*)::int from ${table('external_identities')} e
              where e.provider = r.storage_key and e.state = 'active') as linked_identities
       from ${table('federation_provider_registrations')} r
       left join ${table('federation_provider_controls')} c
         on c.organization_id = r.organization_id and c.provider_id = r.provider_id
      where r.organization_id = ?${providerId === null ? '' : ' and r.provider_id = ?'}
      order by r.provider_id collate "C"`,
    providerId === null ? [organizationId] : [organizationId, providerId],
  );
  return rows.map((row) => ({
    registration: registrationFromRow(unprefix(row, 'r_')),
    control: row['c_organization_id'] === null ? null : controlFromRow(unprefix(row, 'c_')),
    linkedIdentities: Number(row['linked_identities']),
  }));
}

/**
 * The federation reads: the standing of a federated session (identity-http §2.1) in one statement
 * of outer joins, and the provider registry (identity-model §9.1). Ids that are not UUIDs match
 * nothing.
 *
 * @example
 * const reads = new IdentityFederationReadQueries(gateway);
 * const standing = await reads.findFederatedSessionStanding(federation, userId);
 * const providers = await reads.listFederationProviders(organizationId);
 */
export class IdentityFederationReadQueries implements IdentityFederationReads, IdentityFederationRegistryReads {
  constructor(private readonly gateway: StoreGateway) {}

  findFederatedSessionStanding(federation: SessionFederation, userId: string): Promise<FederatedSessionStanding> {
    const { organizationId, providerKey } = federation;
    return this.gateway.read(async (sql) => {
      if (!isUuid(organizationId) || !isUuid(userId)) return NOTHING;
      const [row] = await sql(
        `select p.state as provider_state, p.session_epoch as provider_session_epoch,
                o.state as organization_state, m.state as membership_state
           from (select 1) as anchor
           left join ${table('federation_provider_controls')} p on p.organization_id = ? and p.storage_key = ?
           left join ${table('organizations')} o on o.id = ?
           left join ${table('memberships')} m on m.organization_id = ? and m.user_id = ?`,
        [organizationId, providerKey, organizationId, organizationId, userId],
      );
      if (row === undefined) return NOTHING;
      const state = row['provider_state'];
      return {
        provider:
          state === 'enabled' || state === 'disabled'
            ? { state, sessionEpoch: Number(row['provider_session_epoch']) }
            : null,
        organizationState: (row['organization_state'] ?? null) as OrganizationState | null,
        membershipState: (row['membership_state'] ?? null) as MembershipState | null,
      };
    });
  }

  findFederationProviderControl(
    organizationId: string,
    providerId: string,
  ): Promise<FederationProviderControlRecord | null> {
    return this.gateway.read(async (sql) => {
      if (!isUuid(organizationId)) return null;
      const [row] = await sql(
        `select ${allColumns('federation_provider_controls')} from ${table('federation_provider_controls')}
          where organization_id = ? and provider_id = ?`,
        [organizationId, providerId],
      );
      return row === undefined ? null : controlFromRow(row);
    });
  }

  findFederationProviderControlByStorageKey(storageKey: string): Promise<FederationProviderControlRecord | null> {
    return this.gateway.read(async (sql) => {
      const [row] = await sql(
        `select ${allColumns('federation_provider_controls')} from ${table('federation_provider_controls')}
          where storage_key = ?`,
        [storageKey],
      );
      return row === undefined ? null : controlFromRow(row);
    });
  }

  findExternalIdentity(provider: string, subject: string): Promise<ExternalIdentityRecord | null> {
    return this.gateway.read(async (sql) => {
      const [row] = await sql(
        `select ${allColumns('external_identities')} from ${table('external_identities')}
          where provider = ? and subject = ?`,
        [provider, subject],
      );
      return row === undefined ? null : externalIdentityFromRow(row);
    });
  }

  countExternalIdentities(provider: string): Promise<number> {
    return this.gateway.read(async (sql) => {
      const [row] = await sql(
        `select count(*) as linked from ${table('external_identities')} where provider = ? and state = 'active'`,
        [provider],
      );
      return Number(row?.['linked'] ?? 0);
    });
  }

  findFederationRegistration(organizationId: string, providerId: string): Promise<FederationRegistrationRecord | null> {
    return this.gateway.read(async (sql) => {
      if (!isUuid(organizationId)) return null;
      const [row] = await sql(
        `select ${allColumns('federation_provider_registrations')} from ${table('federation_provider_registrations')}
          where organization_id = ? and provider_id = ?`,
        [organizationId, providerId],
      );
      return row === undefined ? null : registrationFromRow(row);
    });
  }

  findFederationProvider(organizationId: string, providerId: string): Promise<FederationProviderEntry | null> {
    return this.gateway.read(async (sql) => {
      if (!isUuid(organizationId)) return null;
      const [entry] = await providerEntries(sql, organizationId, providerId);
      return entry ?? null;
    });
  }

  listFederationProviders(organizationId: string): Promise<FederationProviderEntry[]> {
    return this.gateway.read(async (sql) => (isUuid(organizationId) ? providerEntries(sql, organizationId, null) : []));
  }
}
