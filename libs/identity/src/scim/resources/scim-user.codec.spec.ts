import { describe, expect, it } from '@jest/globals';
import type { ScimUserRecord } from '../../store/identity-scim.records.js';
import { scimFailure } from '../../../../../test/support/scim/scim-failure.js';
import { EMPTY_SCIM_USER } from './scim-user.assign.js';
import { decodeScimUser, renderScimUser } from './scim-user.codec.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const BASE = 'https://idp.example.com/scim/v2';

describe('decodeScimUser', () => {
  it("decodes Okta's create body and discards the password placeholder", () => {
    const body = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    };
    const user = decodeScimUser(body);
    expect(user).toEqual({
      ...EMPTY_SCIM_USER,
      userName: 'test.user@okta.local',
      externalId: '00ujl29u0le5T6Aj10h7',
      displayName: 'Test User',
      locale: 'en-US',
      name: { ...EMPTY_SCIM_USER.name, givenName: 'Test', familyName: 'User' },
      emails: [{ value: 'test.user@okta.local', type: 'work', primary: true }],
    });
    expect(JSON.stringify(user)).not.toContain('1mz050nq');
  });

  it("decodes Okta's PUT body, ignoring the client's id and meta", () => {
    const user = decodeScimUser({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: '23a35c27-23d3-4c03-b4c5-6443c09e7173',
      userName: 'test.user@okta.local',
      name: { givenName: 'Another', middleName: 'Middle', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Another User',
      externalId: '00u1dhhb1fkIGP7RL1d8',
      groups: [],
      password: '1mz050nq',
      active: true,
      meta: { resourceType: 'User', created: '2018-11-13T20:13:10.513Z', location: 'https://x/Users/1' },
    });
    expect(user.name.middleName).toBe('Middle');
    expect(user).not.toHaveProperty('id');
    expect(user).not.toHaveProperty('meta');
  });

  it("decodes Entra's create body with the enterprise extension, roles and custom schemas ignored", () => {
    const user = decodeScimUser({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
      phoneNumbers: [{ type: 'mobile', value: '+1 555 0100' }],
      addresses: [{ type: 'work', formatted: '1 Main St' }],
      [ENTERPRISE]: { department: 'Sales', employeeNumber: '42', manager: { value: 'boss' } },
      'urn:ietf:params:scim:schemas:extension:custom:2.0:User': { worksiteId: '180' },
    });
    expect(user.enterprise).toEqual({ ...EMPTY_SCIM_USER.enterprise, department: 'Sales', employeeNumber: '42' });
    expect(user.name.formatted).toBe('givenName familyName');
  });

  it('reads attribute names in any case and the enterprise key in any case', () => {
    const user = decodeScimUser({
      USERNAME: 'ada@example.com',
      DisplayName: 'Ada',
      Name: { GivenName: 'Ada' },
      [ENTERPRISE.toUpperCase()]: { Department: 'R&D' },
    });
    expect(user).toMatchObject({ userName: 'ada@example.com', displayName: 'Ada' });
    expect(user.name.givenName).toBe('Ada');
    expect(user.enterprise.department).toBe('R&D');
  });

  it('takes "True"/"False" strings for active and defaults active to true', () => {
    expect(decodeScimUser({ userName: 'a', active: 'False' }).active).toBe(false);
    expect(decodeScimUser({ userName: 'a', active: 'TRUE' }).active).toBe(true);
    expect(decodeScimUser({ userName: 'a' }).active).toBe(true);
    expect(scimFailure(() => decodeScimUser({ userName: 'a', active: 'yes' }))).toEqual({
      status: 400,
      scimType: 'invalidValue',
    });
  });

  it('accepts a single object for emails and a one-item array for a single value (Entra legacy)', () => {
    const user = decodeScimUser({ userName: ['ada@example.com'], emails: { value: 'ada@example.com' } });
    expect(user.userName).toBe('ada@example.com');
    expect(user.emails).toEqual([{ value: 'ada@example.com', type: null, primary: false }]);
  });

  it('refuses a missing or unprintable userName', () => {
    expect(scimFailure(() => decodeScimUser({ displayName: 'x' })).scimType).toBe('invalidValue');
    expect(scimFailure(() => decodeScimUser({ userName: '' })).scimType).toBe('invalidValue');
    expect(scimFailure(() => decodeScimUser({ userName: 'a\u0000b' })).scimType).toBe('invalidValue');
    expect(scimFailure(() => decodeScimUser({ userName: 'x'.repeat(1025) })).scimType).toBe('invalidValue');
    expect(decodeScimUser({ userName: 'x'.repeat(1024) }).userName).toHaveLength(1024);
  });

  it('refuses two primary emails, more than 20 emails and malformed email values', () => {
    const two = [
      { value: 'a@x.com', primary: true },
      { value: 'b@x.com', primary: true },
    ];
    expect(scimFailure(() => decodeScimUser({ userName: 'a', emails: two })).scimType).toBe('invalidValue');
    const many = Array.from({ length: 21 }, (_, index) => ({ value: `u${index}@x.com` }));
    expect(scimFailure(() => decodeScimUser({ userName: 'a', emails: many })).scimType).toBe('invalidValue');
    expect(decodeScimUser({ userName: 'a', emails: many.slice(0, 20) }).emails).toHaveLength(20);
    for (const bad of [{ value: 'no-at-sign' }, { value: 'a@' + 'x'.repeat(320) }, { type: 'work' }, 'a@x.com']) {
      expect(scimFailure(() => decodeScimUser({ userName: 'a', emails: [bad] })).scimType).toBe('invalidValue');
    }
    const longType = { value: 'a@x.com', type: 't'.repeat(65) };
    expect(scimFailure(() => decodeScimUser({ userName: 'a', emails: [longType] })).scimType).toBe('invalidValue');
  });

  it('refuses wrong types of stored attributes and a body that is no object', () => {
    expect(scimFailure(() => decodeScimUser({ userName: 'a', displayName: 5 })).scimType).toBe('invalidValue');
    expect(scimFailure(() => decodeScimUser({ userName: 'a', name: 'Ada' })).scimType).toBe('invalidValue');
    expect(scimFailure(() => decodeScimUser({ userName: 'a', title: 'x'.repeat(1025) })).scimType).toBe('invalidValue');
    expect(scimFailure(() => decodeScimUser([]))).toEqual({ status: 400, scimType: 'invalidSyntax' });
    expect(scimFailure(() => decodeScimUser(null)).scimType).toBe('invalidSyntax');
  });

  it('treats an empty optional string as unset', () => {
    expect(decodeScimUser({ userName: 'a', displayName: '', externalId: null }).displayName).toBeNull();
  });
});

const RECORD: ScimUserRecord = {
  ...EMPTY_SCIM_USER,
  id: '0190a0a0-0000-7000-8000-000000000001',
  organizationId: '0190a0a0-0000-7000-8000-00000000000a',
  provider: 'okta:0190a0a0-0000-7000-8000-00000000000a',
  userId: '0190a0a0-0000-7000-8000-0000000000aa',
  userName: 'ada@example.com',
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  updatedAt: new Date('2026-01-03T03:04:05.000Z'),
  version: 3,
};

const IDENTITY = 'urn:tessera:params:scim:schemas:extension:identity:1.0:User';

describe('renderScimUser', () => {
  it('renders the minimal user with meta and without unset attributes', () => {
    expect(renderScimUser(RECORD, [], BASE)).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', IDENTITY],
      id: RECORD.id,
      userName: 'ada@example.com',
      active: true,
      [IDENTITY]: { userId: RECORD.userId },
      meta: {
        resourceType: 'User',
        created: '2026-01-02T03:04:05.000Z',
        lastModified: '2026-01-03T03:04:05.000Z',
        location: `${BASE}/Users/${RECORD.id}`,
        version: 'W/"3"',
      },
    });
  });

  it('renders the set name parts, emails, groups and the enterprise extension', () => {
    const record: ScimUserRecord = {
      ...RECORD,
      externalId: 'ext-1',
      displayName: 'Ada Lovelace',
      active: false,
      name: { ...RECORD.name, givenName: 'Ada' },
      emails: [
        { value: 'ada@example.com', type: 'work', primary: true },
        { value: 'ada@home.example', type: null, primary: false },
      ],
      enterprise: { ...RECORD.enterprise, department: 'R&D' },
    };
    const rendered = renderScimUser(record, [{ userId: record.id, groupId: 'g1', display: 'Engineering' }], BASE);
    expect(rendered).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE, IDENTITY],
      externalId: 'ext-1',
      displayName: 'Ada Lovelace',
      active: false,
      name: { givenName: 'Ada' },
      emails: [
        { value: 'ada@example.com', type: 'work', primary: true },
        { value: 'ada@home.example', primary: false },
      ],
      groups: [{ value: 'g1', display: 'Engineering', $ref: `${BASE}/Groups/g1` }],
      [ENTERPRISE]: { department: 'R&D' },
    });
    expect(rendered['name']).toEqual({ givenName: 'Ada' });
    expect(JSON.stringify(rendered)).not.toMatch(/password/i);
  });
});
