import {
  RequireCapability,
  RequireIdentity,
  RequireOrganization,
  type CapabilityResolver,
  type OrganizationRole,
} from '@tessera/identity';
import { ViewSetModule } from '@tessera/viewset';
import { packageSerializer } from './package.serializer.js';
import { PackageViewSet } from './package.viewset.js';

const PUBLISHER_ROLES: readonly OrganizationRole[] = ['owner', 'admin', 'publisher'];

/**
 * The demo's application grants for a role: publishers (and admins, owners) may publish packages.
 * The resolver below and the `/device` page (which says up front what a role cannot approve) both
 * read it.
 *
 * @example
 * packageGrants('viewer'); // []
 */
export function packageGrants(role: OrganizationRole | undefined): string[] {
  return role !== undefined && PUBLISHER_ROLES.includes(role) ? ['package.publish'] : [];
}

/** The application grant as a capability resolver: see {@link packageGrants}. */
export const packagePublishers: CapabilityResolver = {
  resolve: ({ role }) => packageGrants(role),
};

const PACKAGES = /^\/orgs\/([0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\/packages(?:\/|$)/;

/** Host routes `/orgs/{organizationId}/packages…` are scoped to the organization in their path. */
export function packagesOrganization(path: string): string | undefined {
  return PACKAGES.exec(path)?.[1];
}

/**
 * `GET/POST /orgs/:organizationId/packages` and `GET /orgs/:organizationId/packages/:id`: every
 * operation needs an identity scoped to the organization; `POST` also needs `package.publish`.
 */
export const PackagesModule = ViewSetModule.register([
  {
    prefix: '/orgs/:organizationId/packages',
    viewSet: PackageViewSet,
    serializer: packageSerializer,
    decorators: [RequireIdentity(), RequireOrganization()],
    actionDecorators: { create: [RequireCapability('package.publish')] },
  },
]);
