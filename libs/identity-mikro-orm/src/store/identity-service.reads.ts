import type {
  IdentityServiceReads,
  ServiceCredentialGrant,
  ServiceCredentialRecord,
  ServiceIdentityRecord,
} from '@tessera/identity';
import { isUuid, table, type StoreGateway } from './identity-store.gateway.js';
import { allColumns, ORGANIZATION_FIELDS, prefixedFields, SERVICE_IDENTITY_FIELDS } from './identity-row.fields.js';
import { organizationFromRow, unprefix } from './identity-row.mappers.js';
import { readOne } from './identity-store.reads.js';
import { serviceCredentialFromRow, serviceIdentityFromRow } from './identity-service.rows.js';

/** The per-request bearer read: credential, identity and organization in one indexed join. */
const CREDENTIAL_GRANT = `select ${allColumns('service_credentials', 'c')},
       ${prefixedFields('i', SERVICE_IDENTITY_FIELDS, 'i_')}, ${prefixedFields('o', ORGANIZATION_FIELDS, 'o_')}
  from ${table('service_credentials')} c
  join ${table('service_identities')} i on i.id = c.service_identity_id
  join ${table('organizations')} o on o.id = i.organization_id
 where c.public_prefix = ?`;

/**
 * The service-identity reads of identity-model §9.1. Ids that are not UUIDs match nothing (a
 * malformed bearer prefix is an unknown credential, not a database error).
 *
 * @example
 * const reads = new IdentityServiceReadQueries(gateway);
 * const identities = await reads.listServiceIdentitiesForOrganization(organizationId);
 */
export class IdentityServiceReadQueries implements IdentityServiceReads {
  constructor(private readonly gateway: StoreGateway) {}

  findServiceIdentity(id: string): Promise<ServiceIdentityRecord | null> {
    return readOne(
      this.gateway,
      'service_identities',
      'id = ?',
      [id],
      (row) => serviceIdentityFromRow(row),
      isUuid(id),
    );
  }

  listServiceIdentitiesForOrganization(organizationId: string): Promise<ServiceIdentityRecord[]> {
    if (!isUuid(organizationId)) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) =>
      (
        await sql(
          `select ${allColumns('service_identities')} from ${table('service_identities')} where organization_id = ? order by created_at, id`,
          [organizationId],
        )
      ).map((row) => serviceIdentityFromRow(row)),
    );
  }

  findServiceCredentialByPrefix(publicPrefix: string): Promise<ServiceCredentialRecord | null> {
    return readOne(
      this.gateway,
      'service_credentials',
      'public_prefix = ?',
      [publicPrefix],
      serviceCredentialFromRow,
      isUuid(publicPrefix),
    );
  }

  listServiceCredentialsForIdentity(serviceIdentityId: string): Promise<ServiceCredentialRecord[]> {
    if (!isUuid(serviceIdentityId)) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) =>
      (
        await sql(
          `select ${allColumns('service_credentials')} from ${table('service_credentials')} where service_identity_id = ? order by created_at, id`,
          [serviceIdentityId],
        )
      ).map(serviceCredentialFromRow),
    );
  }

  findServiceCredentialGrant(publicPrefix: string): Promise<ServiceCredentialGrant | null> {
    if (!isUuid(publicPrefix)) return this.gateway.read(async () => null);
    return this.gateway.read(async (sql) => {
      const [row] = await sql(CREDENTIAL_GRANT, [publicPrefix]);
      return row === undefined
        ? null
        : {
            credential: serviceCredentialFromRow(row),
            identity: serviceIdentityFromRow(row, 'i_'),
            organization: organizationFromRow(unprefix(row, 'o_')),
          };
    });
  }
}
