import { describe, it, expect } from '@jest/globals';
import type { MembershipRecord, OrganizationRecord } from '../store/identity-records.js';
import type { IdentityContext, IdentityPrincipal } from './identity-context.js';
import { resolverGrants, resolverInput, withResolverGrants } from './capability-resolver.js';

const ORG = '01890000-0000-7000-8000-000000000001';
const organization = { id: ORG, state: 'active' } as OrganizationRecord;
const membership = { id: 'm', organizationId: ORG, userId: 'u', role: 'viewer', state: 'active' } as MembershipRecord;
const user: IdentityPrincipal = {
  kind: 'user',
  id: 'u',
  assurance: 'passkey',
  authenticationMethod: 'passkey',
  directCapabilities: [],
  roles: [],
};
const service: IdentityPrincipal = {
  kind: 'service',
  id: 's',
  assurance: 'service_credential',
  authenticationMethod: 'service_credential',
  directCapabilities: ['content.read'],
  roles: [],
};
const grantAll = { resolve: () => ['package.publish', 'audit.read'] };

describe('capability resolvers apply only to members (identity-model §6.2)', () => {
  it('gives resolver input only to a non-restricted user with an active membership in the active organization', () => {
    expect(resolverInput(user, organization, membership)).toEqual({
      principal: user,
      organization,
      membership,
      role: 'viewer',
    });
    expect(resolverInput(service, organization, undefined)).toBeUndefined();
    expect(resolverInput(service, organization, membership)).toBeUndefined();
    expect(resolverInput({ ...user, kind: 'device' }, organization, membership)).toBeUndefined();
    expect(resolverInput({ ...user, assurance: 'recovery' }, organization, membership)).toBeUndefined();
    expect(resolverInput(user, organization, undefined)).toBeUndefined();
    expect(resolverInput(user, undefined, membership)).toBeUndefined();
    expect(resolverInput(user, { ...organization, state: 'suspended' }, membership)).toBeUndefined();
    expect(resolverInput(user, organization, { ...membership, state: 'suspended' })).toBeUndefined();
    expect(resolverInput(user, organization, { ...membership, organizationId: 'other' })).toBeUndefined();
  });

  it('drops identity-owned capabilities from resolver output', async () => {
    expect(await resolverGrants([grantAll], resolverInput(user, organization, membership)!)).toEqual([
      'package.publish',
    ]);
  });

  it('leaves a service principal or a non-member exactly as resolved, and widens a member', async () => {
    const base = { requestId: 'r', requestTime: new Date(), organization };
    const serviceContext: IdentityContext = {
      ...base,
      principal: service,
      effectiveCapabilities: new Set(['content.read']),
    };
    const outsider: IdentityContext = { ...base, principal: user, effectiveCapabilities: new Set() };
    const member: IdentityContext = {
      ...base,
      principal: user,
      membership,
      role: 'viewer',
      effectiveCapabilities: new Set(),
    };
    expect(await withResolverGrants(serviceContext, grantAll)).toBe(serviceContext);
    expect(await withResolverGrants(outsider, grantAll)).toBe(outsider);
    expect(await withResolverGrants(undefined, grantAll)).toBeUndefined();
    expect([...(await withResolverGrants(member, grantAll))!.effectiveCapabilities]).toEqual(['package.publish']);
  });
});
