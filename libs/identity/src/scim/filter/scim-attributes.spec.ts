import { describe, expect, it } from '@jest/globals';
import { isStoredScimAttribute, resolveScimGroupAttribute, resolveScimUserAttribute } from './scim-attributes.js';

describe('the SCIM attribute registry', () => {
  it.each([
    ['userName', 'userName'],
    ['USERNAME', 'userName'],
    ['emails.Value', 'emails.value'],
    ['meta.Created', 'meta.created'],
    ['DisplayName', 'displayName'],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName', 'userName'],
    ['URN:IETF:PARAMS:SCIM:SCHEMAS:CORE:2.0:USER:name.familyName', 'name.familyName'],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', 'enterprise.department'],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', 'enterprise'],
    ['name', 'name'],
  ])('resolves the User attribute %s to %s', (name, path) => {
    const found = resolveScimUserAttribute(name);
    expect(isStoredScimAttribute(found) && found.path).toBe(path);
  });

  it('describes types and case sensitivity per RFC 7643', () => {
    expect(resolveScimUserAttribute('externalId')).toEqual({
      path: 'externalId',
      descriptor: { type: 'string', caseExact: true },
    });
    expect(resolveScimUserAttribute('active')).toEqual({
      path: 'active',
      descriptor: { type: 'boolean', caseExact: false },
    });
    expect(resolveScimUserAttribute('emails.primary')).toMatchObject({
      descriptor: { type: 'boolean', multiValued: true },
    });
    expect(resolveScimUserAttribute('meta.lastModified')).toMatchObject({ descriptor: { type: 'dateTime' } });
    expect(resolveScimGroupAttribute('members.value')).toMatchObject({
      descriptor: { type: 'reference', multiValued: true },
    });
  });

  it.each([
    ['phoneNumbers', true],
    ['phoneNumbers.value', true],
    ['addresses.country', true],
    ['password', false],
    ['emails.display', true],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value', false],
    ['meta.resourceType', false],
  ])('knows the unstored User attribute %s', (name, multiValued) => {
    expect(resolveScimUserAttribute(name)).toEqual({ unstored: true, multiValued });
  });

  it('marks the derived groups attribute', () => {
    expect(resolveScimUserAttribute('Groups.value')).toEqual({ unstored: true, multiValued: true, derived: true });
  });

  it.each(['nosuch', 'department', 'enterprise.department', 'urn:example:User:userName', 'name.nosuch', 'members'])(
    'does not know the User attribute %s',
    (name) => {
      expect(resolveScimUserAttribute(name)).toBeUndefined();
    },
  );

  it('resolves Group attributes and their schema prefix', () => {
    expect(resolveScimGroupAttribute('urn:ietf:params:scim:schemas:core:2.0:Group:displayName')).toMatchObject({
      path: 'displayName',
    });
    expect(resolveScimGroupAttribute('MEMBERS')).toMatchObject({ path: 'members' });
    expect(resolveScimGroupAttribute('members.display')).toEqual({ unstored: true, multiValued: true });
    expect(resolveScimGroupAttribute('userName')).toBeUndefined();
  });
});
