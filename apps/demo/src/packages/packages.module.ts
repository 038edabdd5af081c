import { RequireCapability, RequireIdentity, RequireOrganization, type CapabilityResolver } from '@tessera/identity';
import { ViewSetModule } from '@tessera/viewset';
import { packageSerializer } from './package.serializer.js';
import { PackageViewSet } from './package.viewset.js';

/** The application grant: publishers (and admins, owners) may publish packages. */
export const packagePublishers: CapabilityResolver = {
  resolve: ({ role }) => (role === 'publisher' || role === 'admin' || role === 'owner' ? ['package.publish'] : []),
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
