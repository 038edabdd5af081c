import { describe, it, expect } from '@jest/globals';
import { decideOrganization } from '../guards/identity-decisions.js';
import type { ServiceCredentialGrant } from '../store/identity-service.port.js';
import { buildServiceContext } from './service-credential.resolver.js';

const ORG = '01890000-0000-7000-8000-000000000001';
const OTHER = '01890000-0000-7000-8000-000000000002';
const grant = {
  credential: { capabilities: ['package.publish'] },
  identity: { id: 'sid' },
  organization: { id: ORG, state: 'active' },
} as unknown as ServiceCredentialGrant;
const request = (organizationId: string | undefined) => ({ organizationId, requestId: 'r', requestTime: new Date() });

describe('service principal organization scope', () => {
  it('has no organization scope when the route selects none (regression: it defaulted to its own organization)', () => {
    const context = buildServiceContext(grant, request(undefined));
    expect(context.organization).toBeUndefined();
    expect(decideOrganization(context)).toEqual({ allow: false, code: 'not_found' });
    expect([...context.effectiveCapabilities]).toEqual(['package.publish']);
  });

  it('is scoped to its own organization when the route names it, and to nothing in another one', () => {
    const own = buildServiceContext(grant, request(ORG));
    expect(own.organization?.id).toBe(ORG);
    expect(decideOrganization(own)).toEqual({ allow: true });
    const other = buildServiceContext(grant, request(OTHER));
    expect(other.organization).toBeUndefined();
    expect(other.effectiveCapabilities.size).toBe(0);
  });
});
