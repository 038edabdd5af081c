import { describe, expect, it } from '@jest/globals';
import { projectScimResource } from './scim-projection.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const META = { resourceType: 'User', version: 'W/"1"' };
const USER = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE],
  id: 'u1',
  externalId: 'e1',
  userName: 'ada@example.com',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  active: true,
  emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
  [ENTERPRISE]: { department: 'R&D', employeeNumber: '7' },
  meta: META,
};
const GROUP = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
  id: 'g1',
  displayName: 'Engineering',
  members: [{ value: 'u1', display: 'ada@example.com', $ref: 'https://x/Users/u1' }],
  meta: { resourceType: 'Group' },
};

describe('projectScimResource', () => {
  it('returns the resource unchanged without parameters', () => {
    expect(projectScimResource(USER, {}, 'User')).toBe(USER);
    expect(projectScimResource(USER, { attributes: ' ', excludedAttributes: '' }, 'User')).toBe(USER);
  });

  it('drops members for excludedAttributes=members (Entra) and keeps id, schemas and meta', () => {
    expect(projectScimResource(GROUP, { excludedAttributes: 'members' }, 'Group')).toEqual({
      schemas: GROUP.schemas,
      id: 'g1',
      displayName: 'Engineering',
      meta: GROUP.meta,
    });
    expect(projectScimResource(GROUP, { excludedAttributes: 'Members,id,meta,schemas' }, 'Group')).toEqual({
      schemas: GROUP.schemas,
      id: 'g1',
      displayName: 'Engineering',
      meta: GROUP.meta,
    });
  });

  it('returns only the requested attributes plus the always-returned ones, names in any case', () => {
    expect(projectScimResource(USER, { attributes: 'USERNAME, externalid' }, 'User')).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: 'u1',
      externalId: 'e1',
      userName: 'ada@example.com',
      meta: META,
    });
  });

  it('selects sub-attributes and URN-prefixed names', () => {
    const projected = projectScimResource(
      USER,
      {
        attributes: `name.givenName,emails.value,urn:ietf:params:scim:schemas:core:2.0:User:active,${ENTERPRISE}:department`,
      },
      'User',
    );
    expect(projected).toEqual({
      schemas: USER.schemas,
      id: 'u1',
      name: { givenName: 'Ada' },
      active: true,
      emails: [{ value: 'ada@example.com' }],
      [ENTERPRISE]: { department: 'R&D' },
      meta: META,
    });
    expect(projectScimResource(USER, { attributes: ENTERPRISE }, 'User')[ENTERPRISE]).toEqual(USER[ENTERPRISE]);
  });

  it('excludes sub-attributes and drops the enterprise URN from schemas with the extension', () => {
    const projected = projectScimResource(USER, { excludedAttributes: `name.familyName,${ENTERPRISE}` }, 'User');
    expect(projected['name']).toEqual({ givenName: 'Ada' });
    expect(projected).not.toHaveProperty([ENTERPRISE]);
    expect(projected['schemas']).toEqual(['urn:ietf:params:scim:schemas:core:2.0:User']);
    const noName = projectScimResource(USER, { excludedAttributes: 'name.givenName,name.familyName' }, 'User');
    expect(noName).not.toHaveProperty('name');
  });

  it('lets attributes win over excludedAttributes and ignores unknown names', () => {
    const projected = projectScimResource(
      GROUP,
      { attributes: 'members,nope', excludedAttributes: 'members' },
      'Group',
    );
    expect(projected['members']).toEqual(GROUP.members);
    expect(projected).not.toHaveProperty('displayName');
  });
});
