import { describe, expect, it } from '@jest/globals';
import { scimFailure } from '../../../../../test/support/scim/scim-failure.js';
import { planScimGroupPatch } from './scim-group.patch.js';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const U1 = '89bb1940-b905-4575-9e7f-6f887cfb368e';
const U2 = '0190a0a0-0000-7000-8000-000000000002';

function patch(...operations: unknown[]): unknown {
  return { schemas: [PATCH_OP], Operations: operations };
}

const scimType = (run: () => unknown): string | undefined => scimFailure(run).scimType;

describe('planScimGroupPatch: Okta', () => {
  it('renames with a pathless replace carrying the id (Okta "update group name"), id ignored', () => {
    const body = {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', value: { id: 'abf4dd94-a4c0-4f67-89c9-76b03340cb9b', displayName: 'Test SCIMv2' } },
      ],
    };
    expect(planScimGroupPatch(body)).toEqual([{ kind: 'rename', displayName: 'Test SCIMv2' }]);
  });

  it('adds members (Okta "add users to group")', () => {
    const body = patch({ op: 'add', path: 'members', value: [{ value: U1, display: 'test.user@okta.local' }] });
    expect(planScimGroupPatch(body)).toEqual([{ kind: 'add', memberIds: [U1] }]);
  });

  it('removes exactly the member named by the path filter (Okta "remove users from group")', () => {
    const body = { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${U1}"]` }] };
    expect(planScimGroupPatch(body)).toEqual([{ kind: 'remove', memberIds: [U1] }]);
    const two = patch({ op: 'remove', path: `members[value eq "${U1}" or VALUE EQ "${U2}"]` });
    expect(planScimGroupPatch(two)).toEqual([{ kind: 'remove', memberIds: [U1, U2] }]);
  });

  it('replaces the member list (Okta group push)', () => {
    const body = patch({ op: 'replace', path: 'members', value: [{ value: U1, display: 'a' }, { value: U2 }] });
    expect(planScimGroupPatch(body)).toEqual([{ kind: 'replaceMembers', memberIds: [U1, U2] }]);
  });
});

describe('planScimGroupPatch: Entra', () => {
  it('renames by path (Entra "update group [non-member attributes]")', () => {
    const body = patch({
      op: 'Replace',
      path: 'displayName',
      value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName',
    });
    expect(planScimGroupPatch(body)).toEqual([
      { kind: 'rename', displayName: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' },
    ]);
  });

  it('adds members with $ref null (Entra "update group [add members]")', () => {
    const body = patch({ op: 'Add', path: 'members', value: [{ $ref: null, value: 'f648f8d5ea4e4cd38e9c' }] });
    expect(planScimGroupPatch(body)).toEqual([{ kind: 'add', memberIds: ['f648f8d5ea4e4cd38e9c'] }]);
  });

  it('removes exactly the members of the value array (Entra "update group [remove members]")', () => {
    const body = patch({ op: 'Remove', path: 'members', value: [{ $ref: null, value: 'a2a3b7c9c6114b1b9d3d' }] });
    expect(planScimGroupPatch(body)).toEqual([{ kind: 'remove', memberIds: ['a2a3b7c9c6114b1b9d3d'] }]);
  });

  it('accepts the legacy single member object and a one-item array for displayName', () => {
    expect(planScimGroupPatch(patch({ op: 'Add', path: 'members', value: { value: U1 } }))).toEqual([
      { kind: 'add', memberIds: [U1] },
    ]);
    expect(planScimGroupPatch(patch({ op: 'Replace', path: 'displayName', value: ['Renamed'] }))).toEqual([
      { kind: 'rename', displayName: 'Renamed' },
    ]);
  });
});

describe('planScimGroupPatch: other shapes', () => {
  it('removes every member for remove members without value', () => {
    expect(planScimGroupPatch(patch({ op: 'remove', path: 'members' }))).toEqual([
      { kind: 'replaceMembers', memberIds: [] },
    ]);
  });

  it('sets and clears externalId, by path and pathless, URN-prefixed too', () => {
    expect(
      planScimGroupPatch(
        patch(
          { op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:Group:externalId', value: 'e1' },
          { op: 'remove', path: 'externalId' },
          { op: 'add', value: { externalId: 'e2', members: [{ value: U1 }], meta: {}, custom: 1 } },
        ),
      ),
    ).toEqual([
      { kind: 'externalId', externalId: 'e1' },
      { kind: 'externalId', externalId: null },
      { kind: 'externalId', externalId: 'e2' },
      { kind: 'add', memberIds: [U1] },
    ]);
  });

  it('keeps the order of operations', () => {
    const body = patch(
      { op: 'add', path: 'members', value: [{ value: U1 }] },
      { op: 'remove', path: `members[value eq "${U1}"]` },
    );
    expect(planScimGroupPatch(body).map((step) => step.kind)).toEqual(['add', 'remove']);
  });
});

describe('planScimGroupPatch: refusals', () => {
  it('refuses unknown paths (invalidPath)', () => {
    for (const path of ['owners', 'members.value', 'displayName.x', 'members[value eq "x"].display', 'a b']) {
      expect(scimType(() => planScimGroupPatch(patch({ op: 'replace', path, value: 'x' })))).toBe('invalidPath');
    }
    expect(scimType(() => planScimGroupPatch(patch({ op: 'add', path: `members[value eq "${U1}"]`, value: [] })))).toBe(
      'invalidPath',
    );
  });

  it('refuses malformed or unsupported member filters (invalidFilter)', () => {
    for (const path of [
      'members[value eq]',
      'members[value eq "x"',
      'members[display eq "x"]',
      'members[value ne "x"]',
    ]) {
      const type = scimType(() => planScimGroupPatch(patch({ op: 'remove', path })));
      expect(['invalidFilter', 'invalidPath']).toContain(type);
    }
    expect(scimType(() => planScimGroupPatch(patch({ op: 'remove', path: 'members[display eq "x"]' })))).toBe(
      'invalidFilter',
    );
    expect(scimType(() => planScimGroupPatch(patch({ op: 'remove', path: 'members[value eq]' })))).toBe(
      'invalidFilter',
    );
  });

  it('refuses unknown ops, id/meta changes, removing displayName and remove without path', () => {
    expect(scimType(() => planScimGroupPatch(patch({ op: 'merge', path: 'members', value: [] })))).toBe(
      'invalidSyntax',
    );
    expect(scimType(() => planScimGroupPatch(patch({ op: 'replace', path: 'id', value: 'x' })))).toBe('mutability');
    expect(scimType(() => planScimGroupPatch(patch({ op: 'remove', path: 'displayName' })))).toBe('mutability');
    expect(scimType(() => planScimGroupPatch(patch({ op: 'remove' })))).toBe('noTarget');
    expect(scimType(() => planScimGroupPatch(patch({ op: 'replace', path: 'displayName', value: '' })))).toBe(
      'invalidValue',
    );
    expect(scimType(() => planScimGroupPatch(patch({ op: 'add', path: 'members', value: ['x'] })))).toBe(
      'invalidValue',
    );
  });

  it('refuses more than 10,000 member ids in one request', () => {
    const members = Array.from({ length: 5001 }, (_, index) => ({ value: `u${index}` }));
    const body = patch(
      { op: 'add', path: 'members', value: members },
      { op: 'remove', path: 'members', value: members },
    );
    expect(scimType(() => planScimGroupPatch(body))).toBe('invalidValue');
  });
});
