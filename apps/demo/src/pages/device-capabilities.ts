import { roleCapabilities, type OrganizationRole } from '@tessera/identity';
import { DEMO_CAPABILITIES } from '../identity/demo-identity.config.js';
import { packageGrants } from '../packages/packages.module.js';

const ROLES: readonly OrganizationRole[] = ['owner', 'admin', 'publisher', 'viewer'];

/**
 * For each organization role, the device capabilities (`DEMO_CAPABILITIES.device`) a member with
 * that role holds in the demo: the identity matrix plus the demo's application grants. The `/device`
 * page uses it to say, as soon as an organization is chosen, which requested capabilities that
 * role cannot approve; the server still decides (route 36).
 *
 * @example
 * deviceCapabilitiesByRole().viewer; // ['identity.profile', 'identity.organizations']
 */
export function deviceCapabilitiesByRole(
  allowlist: readonly string[] = DEMO_CAPABILITIES.device,
): Record<OrganizationRole, string[]> {
  const byRole = {} as Record<OrganizationRole, string[]>;
  for (const role of ROLES) {
    const held = new Set([...roleCapabilities(role), ...packageGrants(role)]);
    byRole[role] = allowlist.filter((capability) => held.has(capability));
  }
  return byRole;
}
