import { IdentityDevice } from '../../device/identity-device.service.js';
import { createFederationProtocols } from '../../federation/federation-protocols.factory.js';
import { IdentityFederationProviders } from '../../federation/federation-providers.service.js';
import { FederationRegistry } from '../../federation/federation-registry.js';
import { IdentityFederationSignIn } from '../../federation/federation-sign-in.service.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { IdentityInvitationLifecycle } from '../../invitations/invitation-lifecycle.service.js';
import { IdentityOrganizations } from '../../organizations/organization.service.js';
import { IdentityPasskeys } from '../../passkeys/passkey.service.js';
import { IdentityRecovery } from '../../recovery/recovery.service.js';
import { IdentityScimConnections } from '../../scim/scim-connections.service.js';
import { IdentityServiceIdentities } from '../../service-identities/service-identity.service.js';
import { IdentitySessions } from '../../sessions/session.service.js';

/** The domain services identity routes call (one per domain), built once per router. */
export interface IdentityServices {
  readonly sessions: IdentitySessions;
  readonly passkeys: IdentityPasskeys;
  readonly recovery: IdentityRecovery;
  readonly invitations: IdentityInvitationLifecycle;
  readonly organizations: IdentityOrganizations;
  readonly serviceIdentities: IdentityServiceIdentities;
  readonly device: IdentityDevice;
  readonly federation: IdentityFederationSignIn;
  readonly federationProviders: IdentityFederationProviders;
  readonly scimConnections: IdentityScimConnections;
}

/**
 * Builds the domain services over one kernel; every one shares the sessions service (step-up rule,
 * session minting).
 *
 * @example
 * const services = identityServices(kernel);
 */
export function identityServices(kernel: IdentityKernel): IdentityServices {
  const sessions = new IdentitySessions(kernel);
  const registry = new FederationRegistry(kernel, kernel.federation);
  const protocols = createFederationProtocols(kernel);
  return {
    sessions,
    passkeys: new IdentityPasskeys(kernel, sessions),
    recovery: new IdentityRecovery(kernel, sessions),
    invitations: new IdentityInvitationLifecycle(kernel, sessions),
    organizations: new IdentityOrganizations(kernel, sessions),
    serviceIdentities: new IdentityServiceIdentities(kernel, sessions),
    device: new IdentityDevice(kernel),
    federation: new IdentityFederationSignIn(kernel, sessions, registry, protocols, kernel.federation.successPath),
    federationProviders: new IdentityFederationProviders(kernel, sessions, registry, protocols),
    scimConnections: new IdentityScimConnections(kernel, sessions),
  };
}
