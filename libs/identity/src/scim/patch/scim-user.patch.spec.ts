import { describe, expect, it } from '@jest/globals';
import type { ScimUserAttributes } from '../../store/identity-scim.records.js';
import { ScimError } from '../scim.errors.js';
import { scimFailure } from '../../../../../test/support/scim/scim-failure.js';
import { EMPTY_SCIM_USER } from '../resources/scim-user.assign.js';
import { applyScimUserPatch } from './scim-user.patch.js';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

const USER: ScimUserAttributes = {
  ...EMPTY_SCIM_USER,
  userName: 'Test_User_ab6490ee@testuser.com',
  externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
  displayName: 'Test User',
  name: { ...EMPTY_SCIM_USER.name, givenName: 'Test', familyName: 'User' },
  emails: [{ value: 'test.user@example.com', type: 'work', primary: true }],
};

function patch(...operations: unknown[]): unknown {
  return { schemas: [PATCH_OP], Operations: operations };
}

describe('applyScimUserPatch: Okta', () => {
  it('deactivates with a pathless replace (Okta deactivate user)', () => {
    const body = { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] };
    expect(applyScimUserPatch(USER, body)).toEqual({ ...USER, active: false });
  });

  it('reactivates and changes name parts in one pathless replace', () => {
    const inactive = { ...USER, active: false };
    const body = patch({ op: 'replace', value: { active: true, name: { givenName: 'Another' } } });
    const next = applyScimUserPatch(inactive, body);
    expect(next.active).toBe(true);
    // A complex attribute's unspecified sub-attributes are left unchanged (RFC 7644 §3.5.2.3).
    expect(next.name).toEqual({ ...USER.name, givenName: 'Another' });
  });
});

describe('applyScimUserPatch: Entra', () => {
  it('updates a multi-valued and a single-valued attribute (Entra "update user [multi-valued attributes]")', () => {
    const next = applyScimUserPatch(
      USER,
      patch(
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ),
    );
    expect(next.emails).toEqual([{ value: 'updatedEmail@microsoft.com', type: 'work', primary: true }]);
    expect(next.name.familyName).toBe('updatedFamilyName');
  });

  it('replaces userName (Entra "update user [single-valued attributes]")', () => {
    const body = patch({ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' });
    expect(applyScimUserPatch(USER, body).userName).toBe('5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com');
  });

  it('disables a user (Entra "disable user", Operations before schemas)', () => {
    const body = { Operations: [{ op: 'Replace', path: 'active', value: false }], schemas: [PATCH_OP] };
    expect(applyScimUserPatch(USER, body).active).toBe(false);
  });

  it('adds a work email when none exists for replace emails[type eq "work"].value (Entra behaviour)', () => {
    const body = patch({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'new@example.com' });
    expect(applyScimUserPatch({ ...USER, emails: [] }, body).emails).toEqual([
      { value: 'new@example.com', type: 'work', primary: false },
    ]);
    const add = patch({ op: 'Add', path: 'emails[type eq "work"].value', value: 'joe@example.com' });
    expect(applyScimUserPatch({ ...USER, emails: [] }, add).emails).toHaveLength(1);
  });

  it('sets the enterprise department, manager ignored', () => {
    const next = applyScimUserPatch(
      USER,
      patch(
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Sales' },
        { op: 'Replace', path: `${ENTERPRISE}:manager`, value: '26118915-6090-4610-87a4-49d5d2b2e21c' },
      ),
    );
    expect(next.enterprise.department).toBe('Sales');
    expect(next).toEqual({ ...USER, enterprise: { ...USER.enterprise, department: 'Sales' } });
  });
});

describe("applyScimUserPatch: Entra's legacy shapes", () => {
  it('applies a pathless replace with dotted and URN-prefixed keys and "False"', () => {
    const body = patch({
      op: 'Replace',
      value: {
        displayName: 'Pat Doe',
        'name.givenName': 'Pat',
        'name.familyName': 'Doe',
        [`${ENTERPRISE}:department`]: 'Sales',
        'urn:ietf:params:scim:schemas:core:2.0:User:userName': 'pat@example.com',
        'urn:ietf:params:scim:schemas:core:2.0:User:title': 'Engineer',
        active: 'False',
      },
    });
    const next = applyScimUserPatch(USER, body);
    expect(next).toMatchObject({
      displayName: 'Pat Doe',
      userName: 'pat@example.com',
      title: 'Engineer',
      active: false,
    });
    expect(next.name).toEqual({ ...USER.name, givenName: 'Pat', familyName: 'Doe' });
    expect(next.enterprise.department).toBe('Sales');
  });

  it('adds a single-valued string sent as [{value}] (Entra without aadOptscim062020)', () => {
    const body = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'Add', path: 'nickName', value: [{ value: 'Babs' }] }],
    };
    expect(applyScimUserPatch(USER, body).nickName).toBe('Babs');
    const flagged = patch({ op: 'add', path: 'nickName', value: 'Babs' });
    expect(applyScimUserPatch(USER, flagged).nickName).toBe('Babs');
  });

  it('replaces several attributes path by path and as one pathless object (Entra with and without the flag)', () => {
    const values = {
      displayName: 'Pvlo',
      'emails[type eq "work"].value': 'TestBcwqnm@test.microsoft.com',
      'name.givenName': 'Gtfd',
      'name.familyName': 'Pkqf',
      externalId: 'Eqpj',
      [`${ENTERPRISE}:employeeNumber`]: 'Eqpj',
    };
    const byPath = patch(...Object.entries(values).map(([path, value]) => ({ op: 'Replace', path, value })));
    const pathless = patch({ op: 'replace', value: values });
    const expected: ScimUserAttributes = {
      ...USER,
      displayName: 'Pvlo',
      externalId: 'Eqpj',
      emails: [{ value: 'TestBcwqnm@test.microsoft.com', type: 'work', primary: true }],
      name: { ...USER.name, givenName: 'Gtfd', familyName: 'Pkqf' },
      enterprise: { ...USER.enterprise, employeeNumber: 'Eqpj' },
    };
    expect(applyScimUserPatch(USER, byPath)).toEqual(expected);
    expect(applyScimUserPatch(USER, pathless)).toEqual(expected);
  });

  it('takes "True" for active and one-item arrays / single objects', () => {
    const inactive = { ...USER, active: false };
    expect(applyScimUserPatch(inactive, patch({ op: 'Replace', path: 'active', value: 'True' })).active).toBe(true);
    expect(applyScimUserPatch(USER, patch({ op: 'Replace', path: 'displayName', value: ['One'] })).displayName).toBe(
      'One',
    );
    const single = patch({ op: 'Add', path: 'emails', value: { value: 'home@example.com', type: 'home' } });
    expect(applyScimUserPatch(USER, single).emails).toHaveLength(2);
  });

  it('never fails a deactivation on attributes that are not stored', () => {
    const body = patch(
      { op: 'Replace', path: 'active', value: 'False' },
      { op: 'Replace', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555 0100' },
      { op: 'Replace', path: 'addresses[type eq "work"].formatted', value: '1 Main St' },
      { op: 'Add', path: 'roles', value: [{ value: 'admin' }] },
      { op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:custom:2.0:User:worksiteId', value: '180' },
      { op: 'Replace', value: { phoneNumbers: [{ value: '1' }], preferredLanguage: 'en', password: 'x' } },
      { op: 'Remove', path: 'emails[type eq "home"].display' },
    );
    expect(applyScimUserPatch(USER, body)).toEqual({ ...USER, active: false, preferredLanguage: 'en' });
  });
});

describe('applyScimUserPatch: emails', () => {
  const two: ScimUserAttributes = {
    ...USER,
    emails: [
      { value: 'work@example.com', type: 'work', primary: true },
      { value: 'home@example.com', type: 'home', primary: false },
    ],
  };

  it('removes only the emails a filter path matches, and a filter matching nothing is a no-op', () => {
    const next = applyScimUserPatch(two, patch({ op: 'remove', path: 'emails[type eq "home"]' }));
    expect(next.emails).toEqual([two.emails[0]]);
    expect(applyScimUserPatch(two, patch({ op: 'remove', path: 'emails[type eq "other"]' }))).toEqual(two);
    const both = patch({ op: 'remove', path: 'emails[type eq "home" or value sw "WORK@"]' });
    expect(applyScimUserPatch(two, both).emails).toEqual([]);
    expect(applyScimUserPatch(two, patch({ op: 'remove', path: 'emails' })).emails).toEqual([]);
  });

  it('replaces a whole matched email and moves primary', () => {
    const body = patch({
      op: 'replace',
      path: 'emails[type eq "home"]',
      value: { value: 'h2@example.com', primary: 'True' },
    });
    expect(applyScimUserPatch(two, body).emails).toEqual([
      { value: 'work@example.com', type: 'work', primary: false },
      { value: 'h2@example.com', type: 'home', primary: true },
    ]);
  });

  it('sets primary on the matched email and clears it elsewhere', () => {
    const body = patch({ op: 'replace', path: 'emails[value eq "home@example.com"].primary', value: true });
    expect(applyScimUserPatch(two, body).emails.map((email) => email.primary)).toEqual([false, true]);
  });

  it('replaces the whole list and refuses two primaries', () => {
    const list = [{ value: 'a@x.com', primary: true }];
    expect(applyScimUserPatch(two, patch({ op: 'replace', path: 'emails', value: list })).emails).toEqual([
      { value: 'a@x.com', type: null, primary: true },
    ]);
    const twoPrimaries = [...list, { value: 'b@x.com', primary: true }];
    expect(
      scimFailure(() => applyScimUserPatch(two, patch({ op: 'replace', path: 'emails', value: twoPrimaries }))),
    ).toEqual({
      status: 400,
      scimType: 'invalidValue',
    });
  });

  it('removes exactly the emails of a value list', () => {
    const body = patch({ op: 'Remove', path: 'emails', value: [{ value: 'HOME@example.com' }] });
    expect(applyScimUserPatch(two, body).emails).toEqual([two.emails[0]]);
  });

  it('applies a pathless key that carries a value filter as a path', () => {
    const body = patch({
      op: 'Replace',
      value: { 'emails[type eq "work"].value': 'moved@example.com', active: 'False' },
    });
    const next = applyScimUserPatch(two, body);
    expect(next.emails[0]).toEqual({ value: 'moved@example.com', type: 'work', primary: true });
    expect(next.active).toBe(false);
  });

  it('adds without duplicating an email already there', () => {
    const body = patch({ op: 'add', path: 'emails', value: [{ value: 'WORK@example.com', type: 'work' }] });
    expect(applyScimUserPatch(two, body).emails).toHaveLength(2);
  });
});

describe('applyScimUserPatch: refusals', () => {
  it('refuses a body without the PatchOp schema or without operations (invalidSyntax)', () => {
    const ops = [{ op: 'replace', path: 'active', value: false }];
    expect(scimFailure(() => applyScimUserPatch(USER, { Operations: ops })).scimType).toBe('invalidSyntax');
    expect(scimFailure(() => applyScimUserPatch(USER, { schemas: [PATCH_OP], Operations: [] })).scimType).toBe(
      'invalidSyntax',
    );
    const many = Array.from({ length: 1001 }, () => ops[0]);
    expect(scimFailure(() => applyScimUserPatch(USER, { schemas: [PATCH_OP], Operations: many })).scimType).toBe(
      'invalidSyntax',
    );
    expect(scimFailure(() => applyScimUserPatch(USER, 'x')).scimType).toBe('invalidSyntax');
  });

  it('refuses an unknown op (invalidSyntax), never a silent 2xx', () => {
    for (const op of ['copy', 'move', 'test', '', 7]) {
      expect(scimFailure(() => applyScimUserPatch(USER, patch({ op, path: 'active', value: false })))).toEqual({
        status: 400,
        scimType: 'invalidSyntax',
      });
    }
  });

  it('refuses malformed paths (invalidPath) and malformed filters (invalidFilter)', () => {
    for (const path of ['emails[type eq "work"', 'emails[type eq "work"]value', 'name.givenName.x', '1abc', 'a b']) {
      expect(scimFailure(() => applyScimUserPatch(USER, patch({ op: 'replace', path, value: 'x' }))).scimType).toBe(
        'invalidPath',
      );
    }
    for (const path of ['emails[type eq]', 'emails[type zz "work"]', 'emails[(type eq "work"]', 'emails["x" eq 1]']) {
      expect(scimFailure(() => applyScimUserPatch(USER, patch({ op: 'remove', path }))).scimType).toBe('invalidFilter');
    }
    expect(
      scimFailure(() => applyScimUserPatch(USER, patch({ op: 'replace', path: 'userName[value eq "x"]', value: 'y' })))
        .scimType,
    ).toBe('invalidPath');
  });

  it('refuses changes to id and meta and the removal of userName (mutability)', () => {
    for (const operation of [
      { op: 'replace', path: 'id', value: 'x' },
      { op: 'replace', path: 'meta.created', value: '2020-01-01T00:00:00Z' },
      { op: 'remove', path: 'userName' },
      { op: 'remove', path: 'active' },
    ]) {
      expect(scimFailure(() => applyScimUserPatch(USER, patch(operation)))).toEqual({
        status: 400,
        scimType: 'mutability',
      });
    }
  });

  it('ignores read-only id, meta and schemas echoed inside a pathless object (a deactivation still applies)', () => {
    const next = applyScimUserPatch(
      USER,
      patch({ op: 'replace', value: { id: 'x', meta: { version: 'W/"9"' }, schemas: [], active: false } }),
    );
    expect(next).toEqual({ ...USER, active: false });
  });

  it('refuses remove without path (noTarget) and add without value or with a bad value (invalidValue)', () => {
    expect(scimFailure(() => applyScimUserPatch(USER, patch({ op: 'remove' }))).scimType).toBe('noTarget');
    expect(scimFailure(() => applyScimUserPatch(USER, patch({ op: 'add', path: 'title' }))).scimType).toBe(
      'invalidValue',
    );
    expect(
      scimFailure(() => applyScimUserPatch(USER, patch({ op: 'replace', path: 'active', value: 'maybe' }))).scimType,
    ).toBe('invalidValue');
    expect(scimFailure(() => applyScimUserPatch(USER, patch({ op: 'replace', value: 'x' }))).scimType).toBe(
      'invalidValue',
    );
    expect(
      scimFailure(() => applyScimUserPatch(USER, patch({ op: 'replace', path: 'userName', value: '' }))).scimType,
    ).toBe('invalidValue');
  });

  it('applies all operations or none: a failing later operation leaves the input untouched', () => {
    const body = patch({ op: 'replace', path: 'active', value: false }, { op: 'remove', path: 'userName' });
    expect(() => applyScimUserPatch(USER, body)).toThrow(ScimError);
    expect(USER.active).toBe(true);
  });

  it('removes optional attributes and complex parts', () => {
    const next = applyScimUserPatch(
      { ...USER, enterprise: { ...USER.enterprise, department: 'D' } },
      patch(
        { op: 'remove', path: 'displayName' },
        { op: 'remove', path: 'name.givenName' },
        { op: 'Remove', path: ENTERPRISE },
        { op: 'remove', path: 'externalId' },
      ),
    );
    expect(next).toEqual({
      ...USER,
      displayName: null,
      externalId: null,
      name: { ...USER.name, givenName: null },
      enterprise: EMPTY_SCIM_USER.enterprise,
    });
  });
});
