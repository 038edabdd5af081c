import type { IdentityOrganizationReads, MembershipRecord } from '@tessera/identity';
import { isUuid, table, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { membershipFromRow } from './identity-row.mappers.js';

/**
 * The organization reads of identity-model §9.1 beyond the core ones. Ids that are not UUIDs
 * match nothing.
 *
 * @example
 * const members = await new IdentityOrganizationReadQueries(gateway).listMembershipsForOrganization(organizationId);
 */
export class IdentityOrganizationReadQueries implements IdentityOrganizationReads {
  constructor(private readonly gateway: StoreGateway) {}

  listMembershipsForOrganization(organizationId: string): Promise<MembershipRecord[]> {
    if (!isUuid(organizationId)) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) =>
      (
        await sql(
          `select ${allColumns('memberships')} from ${table('memberships')} where organization_id = ? order by id`,
          [organizationId],
        )
      ).map(membershipFromRow),
    );
  }
}
