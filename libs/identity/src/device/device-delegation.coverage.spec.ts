import { describe, expect, it, jest } from '@jest/globals';
import type { DeviceGrantAuthorization } from '../store/identity-device.records.js';
import type { MembershipRecord, OrganizationRecord } from '../store/identity-records.js';
import { delegationStillGranted } from './device-delegation.coverage.js';

const authorization: DeviceGrantAuthorization = {
  userId: 'u',
  organizationId: 'o',
  membershipId: 'm',
  membershipVersion: 3,
  authorizedByUserId: 'u',
  authorizedAt: new Date(0),
  approvedCapabilities: ['identity.profile', 'package.publish'],
};
const organization = { id: 'o', state: 'active' } as OrganizationRecord;
const membership = { id: 'm', organizationId: 'o', state: 'active', role: 'publisher', version: 3 } as MembershipRecord;

function storeOf(over: { organization?: OrganizationRecord | null; membership?: MembershipRecord | null } = {}) {
  return {
    findOrganization: jest.fn(async () => (over.organization === undefined ? organization : over.organization)),
    findMembership: jest.fn(async () => (over.membership === undefined ? membership : over.membership)),
  };
}

describe('delegationStillGranted', () => {
  it('reads nothing when no resolver is configured or only identity-owned capabilities were approved', async () => {
    const store = storeOf();
    expect(await delegationStillGranted(store, [], authorization)).toBe(true);
    const resolver = { resolve: jest.fn(() => []) };
    const identityOnly = { ...authorization, approvedCapabilities: ['identity.profile'] };
    expect(await delegationStillGranted(store, [resolver], identityOnly)).toBe(true);
    expect(store.findOrganization).not.toHaveBeenCalled();
    expect(resolver.resolve).not.toHaveBeenCalled();
  });

  it('is false when the role and the resolvers no longer cover an approved capability', async () => {
    const granting = { resolve: () => ['package.publish'] };
    expect(await delegationStillGranted(storeOf(), [granting], authorization)).toBe(true);
    const withdrawn = { resolve: () => [] };
    expect(await delegationStillGranted(storeOf(), [withdrawn], authorization)).toBe(false);
  });

  it('leaves a changed membership or organization to the store’s claim (true)', async () => {
    const none = { resolve: () => [] };
    expect(
      await delegationStillGranted(storeOf({ membership: { ...membership, version: 4 } }), [none], authorization),
    ).toBe(true);
    expect(await delegationStillGranted(storeOf({ membership: null }), [none], authorization)).toBe(true);
    expect(
      await delegationStillGranted(
        storeOf({ organization: { ...organization, state: 'suspended' } }),
        [none],
        authorization,
      ),
    ).toBe(true);
  });
});
