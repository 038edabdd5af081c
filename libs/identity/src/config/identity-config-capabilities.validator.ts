import { CAPABILITY_NAME, IDENTITY_OWNED_CAPABILITIES, isCapabilityName } from '../organizations/capabilities.js';
import type { ResolvedIdentityConfig } from './identity.config.js';
import { fail } from './identity-config.rules.js';

/**
 * Device and service allowlists (`identity-model.md` §5.8, §6.2): valid, distinct capability
 * names; the service allowlist holds no identity-owned capability (devices may carry
 * identity-management capabilities).
 *
 * @example
 * validateCapabilityAllowlists(resolveIdentityConfig({ ...input, capabilities: { service: ['audit.read'] } })); // throws
 */
export function validateCapabilityAllowlists(config: ResolvedIdentityConfig): void {
  for (const kind of ['device', 'service'] as const) {
    const list: readonly unknown[] = config.capabilities[kind];
    if (!Array.isArray(list)) fail('capability_allowlist', `capabilities.${kind} must be an array of capability names`);
    const seen = new Set<string>();
    list.forEach((name, i) => {
      const path = `capabilities.${kind}[${i}]`;
      if (typeof name !== 'string' || !isCapabilityName(name)) {
        fail(
          'capability_allowlist',
          `${path} must be a capability name of 3..200 chars matching ${CAPABILITY_NAME.source} (e.g. "content.read")`,
        );
      }
      if (seen.has(name)) fail('capability_allowlist', `${path} is listed twice`);
      seen.add(name);
      if (kind === 'service' && IDENTITY_OWNED_CAPABILITIES.has(name)) {
        fail(
          'capability_allowlist',
          `${path} is identity-owned and can never be a service-credential scope; remove it`,
        );
      }
    });
  }
}
