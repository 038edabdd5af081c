import { describe, expect, it } from '@jest/globals';
import type { ScimGroupRecord } from '../../store/identity-scim.records.js';
import { scimFailure } from '../../../../../test/support/scim/scim-failure.js';
import { decodeScimGroup, renderScimGroup } from './scim-group.codec.js';

const BASE = 'https://idp.example.com/scim/v2';

const scimType = (run: () => unknown): string | undefined => scimFailure(run).scimType;

describe('decodeScimGroup', () => {
  it("decodes Okta's group push body (no members yet)", () => {
    expect(
      decodeScimGroup({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
        displayName: 'Test SCIMv2',
        members: [],
      }),
    ).toEqual({ displayName: 'Test SCIMv2', externalId: null, memberIds: [] });
  });

  it("decodes Entra's create group body with its extra schema and meta", () => {
    expect(
      decodeScimGroup({
        schemas: [
          'urn:ietf:params:scim:schemas:core:2.0:Group',
          'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group',
        ],
        externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
        displayName: 'displayName',
        meta: { resourceType: 'Group' },
      }),
    ).toEqual({ displayName: 'displayName', externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', memberIds: [] });
  });

  it('collapses duplicate members, ignores display and $ref, accepts a single member object', () => {
    expect(
      decodeScimGroup({
        DisplayName: 'Engineering',
        members: [
          { value: 'u1', display: 'ada@example.com', $ref: `${BASE}/Users/u1` },
          { Value: 'u2' },
          { value: 'u1' },
        ],
      }).memberIds,
    ).toEqual(['u1', 'u2']);
    expect(decodeScimGroup({ displayName: 'E', members: { value: 'u3' } }).memberIds).toEqual(['u3']);
    expect(decodeScimGroup({ 'urn:ietf:params:scim:schemas:core:2.0:Group:displayName': 'Prefixed' }).displayName).toBe(
      'Prefixed',
    );
  });

  it('refuses a missing displayName, malformed members, too many members and a non-object body', () => {
    expect(scimType(() => decodeScimGroup({ members: [] }))).toBe('invalidValue');
    expect(scimType(() => decodeScimGroup({ displayName: 7 }))).toBe('invalidValue');
    expect(scimType(() => decodeScimGroup({ displayName: 'E', members: ['u1'] }))).toBe('invalidValue');
    expect(scimType(() => decodeScimGroup({ displayName: 'E', members: [{ display: 'x' }] }))).toBe('invalidValue');
    const members = Array.from({ length: 10_001 }, (_, index) => ({ value: `u${index}` }));
    expect(scimType(() => decodeScimGroup({ displayName: 'E', members }))).toBe('invalidValue');
    expect(decodeScimGroup({ displayName: 'E', members: members.slice(1) }).memberIds).toHaveLength(10_000);
    expect(scimType(() => decodeScimGroup('x'))).toBe('invalidSyntax');
  });
});

describe('renderScimGroup', () => {
  const record: ScimGroupRecord = {
    id: 'g1',
    organizationId: 'o1',
    provider: 'entra:o1',
    externalId: null,
    displayName: 'Engineering',
    createdAt: new Date('2026-01-02T03:04:05.000Z'),
    updatedAt: new Date('2026-01-02T03:04:05.000Z'),
    version: 1,
  };

  it('renders members with display and $ref, and meta of a Group', () => {
    expect(renderScimGroup(record, [{ groupId: 'g1', userId: 'u1', display: 'ada@example.com' }], BASE)).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      id: 'g1',
      displayName: 'Engineering',
      members: [{ value: 'u1', display: 'ada@example.com', $ref: `${BASE}/Users/u1` }],
      meta: {
        resourceType: 'Group',
        created: '2026-01-02T03:04:05.000Z',
        lastModified: '2026-01-02T03:04:05.000Z',
        location: `${BASE}/Groups/g1`,
        version: 'W/"1"',
      },
    });
    expect(renderScimGroup({ ...record, externalId: 'x' }, [], BASE)).toMatchObject({ externalId: 'x', members: [] });
  });
});
