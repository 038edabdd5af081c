import { describe, expect, it } from '@jest/globals';
import { deviceFamilyStanding } from './identity-device.records.js';
import type { MembershipRecord, OrganizationRecord, UserRecord } from './identity-records.js';

const at = new Date('2031-05-01T10:00:00.000Z');
const user: UserRecord = {
  id: 'u1',
  primaryEmail: null,
  displayName: 'Dev',
  state: 'active',
  sessionEpoch: 0,
  version: 0,
  createdAt: at,
  updatedAt: at,
};
const organization = {
  id: 'o1',
  name: 'Org',
  slug: 'org',
  state: 'active',
  version: 0,
  createdAt: at,
} as OrganizationRecord;
const membership: MembershipRecord = {
  id: 'm1',
  organizationId: 'o1',
  userId: 'u1',
  role: 'publisher',
  state: 'active',
  version: 3,
  createdAt: at,
  updatedAt: at,
  removedAt: null,
};
const snapshot = { membershipId: 'm1', membershipVersion: 3 };

describe('deviceFamilyStanding', () => {
  it('holds while user, organization and membership are active at the snapshot version', () => {
    expect(deviceFamilyStanding(snapshot, { membership, user, organization })).toBe('current');
  });

  it('turns membership_changed on a role change, removal, suspension or another membership', () => {
    const changed = [
      { membership: { ...membership, version: 4 }, user, organization },
      { membership: { ...membership, state: 'removed' as const }, user, organization },
      { membership: null, user, organization },
      { membership: { ...membership, id: 'm2' }, user, organization },
      { membership, user: { ...user, state: 'suspended' as const }, organization },
      { membership, user, organization: { ...organization, state: 'suspended' as const } },
      { membership: { ...membership, userId: 'u2' }, user, organization },
    ];
    for (const current of changed) expect(deviceFamilyStanding(snapshot, current)).toBe('membership_changed');
  });
});
