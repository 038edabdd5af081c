import { describe, expect, it } from '@jest/globals';
import { ScimError } from '../scim.errors.js';
import type { ScimUserFilter } from './scim-filter.ast.js';
import { parseScimGroupFilter, parseScimSortBy, parseScimUserFilter } from './scim-filter.parser.js';

const cmp = (attribute: string, op: string, value: unknown) => ({ kind: 'compare', attribute, op, value });
const pr = (attribute: string) => ({ kind: 'present', attribute });
const and = (...filters: unknown[]) => ({ kind: 'and', filters });
const or = (...filters: unknown[]) => ({ kind: 'or', filters });
const not = (filter: unknown) => ({ kind: 'not', filter });
const emails = (filter: unknown) => ({ kind: 'valuePath', attribute: 'emails', filter });
const constant = (value: boolean) => ({ kind: 'constant', value });

function failure(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error instanceof ScimError
      ? { status: error.status, scimType: error.scimType, detail: error.detail }
      : error;
  }
  return 'parsed';
}

describe('parseScimUserFilter', () => {
  it.each<[string, unknown]>([
    // Every operator.
    ['userName eq "bjensen"', cmp('userName', 'eq', 'bjensen')],
    ['userName ne "bjensen"', cmp('userName', 'ne', 'bjensen')],
    ['userName co "jen"', cmp('userName', 'co', 'jen')],
    ['userName sw "J"', cmp('userName', 'sw', 'J')],
    ['userName ew "sen"', cmp('userName', 'ew', 'sen')],
    ['userName gt "a"', cmp('userName', 'gt', 'a')],
    ['userName ge "a"', cmp('userName', 'ge', 'a')],
    ['userName lt "a"', cmp('userName', 'lt', 'a')],
    ['userName le "a"', cmp('userName', 'le', 'a')],
    ['title pr', pr('title')],
    // Case-insensitive names and operators, URN prefixes.
    ['USERNAME EQ "x"', cmp('userName', 'eq', 'x')],
    ['DisplayName Eq "x"', cmp('displayName', 'eq', 'x')],
    ['emails.Value co "@x"', cmp('emails.value', 'co', '@x')],
    ['meta.Created gt "2011-05-13T04:42:34Z"', cmp('meta.created', 'gt', new Date('2011-05-13T04:42:34Z'))],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x"', cmp('userName', 'eq', 'x')],
    ['urn:ietf:params:scim:schemas:core:2.0:User:name.familyName pr', pr('name.familyName')],
    [
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "R&D"',
      cmp('enterprise.department', 'eq', 'R&D'),
    ],
    [
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq 701984',
      cmp('enterprise.employeeNumber', 'eq', '701984'),
    ],
    // Sub-attributes and multi-valued attributes.
    ['name.familyName co "O\'Malley"', cmp('name.familyName', 'co', "O'Malley")],
    ['emails eq "a@x"', cmp('emails.value', 'eq', 'a@x')],
    ['emails pr', pr('emails.value')],
    ['emails.type eq "work"', cmp('emails.type', 'eq', 'work')],
    ['emails.primary eq true', cmp('emails.primary', 'eq', true)],
    [
      'name pr',
      or(
        ...['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((p) =>
          pr(`name.${p}`),
        ),
      ),
    ],
    // Value paths.
    ['emails[type eq "work"]', emails(cmp('emails.type', 'eq', 'work'))],
    [
      'emails[type eq "work" and value co "@example.com"]',
      emails(and(cmp('emails.type', 'eq', 'work'), cmp('emails.value', 'co', '@example.com'))),
    ],
    [
      'emails[type eq "work"].value eq "x@example.com"',
      emails(and(cmp('emails.type', 'eq', 'work'), cmp('emails.value', 'eq', 'x@example.com'))),
    ],
    ['Emails[Type eq "work"].Value pr', emails(and(cmp('emails.type', 'eq', 'work'), pr('emails.value')))],
    ['emails[not (primary eq true)]', emails(not(cmp('emails.primary', 'eq', true)))],
    [
      'emails[type eq "work" or (primary eq true)]',
      emails(or(cmp('emails.type', 'eq', 'work'), cmp('emails.primary', 'eq', true))),
    ],
    [
      'userType eq "Employee" and emails[type eq "work" and value co "@example.com"]',
      and(
        cmp('userType', 'eq', 'Employee'),
        emails(and(cmp('emails.type', 'eq', 'work'), cmp('emails.value', 'co', '@example.com'))),
      ),
    ],
    // Precedence: and binds tighter than or; parentheses; not.
    [
      'title pr or userType eq "a" and active eq true',
      or(pr('title'), and(cmp('userType', 'eq', 'a'), cmp('active', 'eq', true))),
    ],
    [
      'title pr and userType eq "a" or active eq true',
      or(and(pr('title'), cmp('userType', 'eq', 'a')), cmp('active', 'eq', true)),
    ],
    [
      '(title pr or userType eq "a") and active eq true',
      and(or(pr('title'), cmp('userType', 'eq', 'a')), cmp('active', 'eq', true)),
    ],
    ['title pr and not (userType eq "a")', and(pr('title'), not(cmp('userType', 'eq', 'a')))],
    ['not(title pr)', not(pr('title'))],
    ['NOT (title pr) OR Title Pr AND title PR', or(not(pr('title')), and(pr('title'), pr('title')))],
    ['((title pr))', pr('title')],
    ['title pr and title pr and title pr', and(pr('title'), pr('title'), pr('title'))],
    // Lenient bare values (Microsoft's SCIM test material).
    ['userName sw O', cmp('userName', 'sw', 'O')],
    ['name.familyName eq Employee', cmp('name.familyName', 'eq', 'Employee')],
    [
      'meta.created gt 2015-10-10T14:38:21.8617979-07:00',
      cmp('meta.created', 'gt', new Date('2015-10-10T21:38:21.861Z')),
    ],
    ['(userName eq O)', cmp('userName', 'eq', 'O')],
    ['emails[value eq a@x]', emails(cmp('emails.value', 'eq', 'a@x'))],
    // JSON string escapes, numbers, booleans, null, dates.
    ['displayName eq "a\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00"', cmp('displayName', 'eq', 'a"b\\c/d\n\té😀')],
    ['displayName eq "unicode é 漢字"', cmp('displayName', 'eq', 'unicode é 漢字')],
    ['displayName eq "and or not ( ) [ ]"', cmp('displayName', 'eq', 'and or not ( ) [ ]')],
    ['externalId eq 12.5e3', cmp('externalId', 'eq', '12.5e3')],
    ['externalId eq "00123"', cmp('externalId', 'eq', '00123')],
    ['active eq true', cmp('active', 'eq', true)],
    ['active ne FALSE', cmp('active', 'ne', false)],
    ['active eq "True"', cmp('active', 'eq', true)],
    ['active eq "false"', cmp('active', 'eq', false)],
    ['title eq null', cmp('title', 'eq', null)],
    ['title ne null', cmp('title', 'ne', null)],
    ['active eq null', cmp('active', 'eq', null)],
    ['meta.lastModified ge "2011-05-13"', cmp('meta.lastModified', 'ge', new Date('2011-05-13T00:00:00Z'))],
    [
      'meta.lastModified lt "2011-05-13T04:42:34+0200"',
      cmp('meta.lastModified', 'lt', new Date('2011-05-13T02:42:34Z')),
    ],
    ['meta.created le "2011-05-13T04:42"', cmp('meta.created', 'le', new Date('2011-05-13T04:42:00Z'))],
    // Whitespace.
    ['  userName\teq\n"x"  ', cmp('userName', 'eq', 'x')],
    ['userName eq"x"', cmp('userName', 'eq', 'x')],
    // Unstored attributes of the schemas are absent.
    ['phoneNumbers.value eq "555"', constant(false)],
    ['phoneNumbers ne "555"', constant(true)],
    ['addresses.country pr', constant(false)],
    ['phoneNumbers eq null', constant(true)],
    ['phoneNumbers ne null', constant(false)],
    ['phoneNumbers[type eq "work"]', constant(false)],
    ['phoneNumbers[type eq "work"].value ne "x"', constant(false)],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value eq "x"', constant(false)],
    ['emails[display eq "x"]', emails(constant(false))],
  ])('parses %s', (text, expected) => {
    expect(parseScimUserFilter(text)).toEqual(expected);
  });

  it.each([
    '',
    '   ',
    'userName',
    'userName eq',
    'userName "x"',
    'userName xx "x"',
    'userName eq "x" and',
    'userName eq "x" or or userName eq "y"',
    'userName eq "x" userName eq "y"',
    '(userName eq "x"',
    'userName eq "x")',
    'not userName eq "x"',
    'not ()',
    '()',
    'userName eq "unterminated',
    'userName eq "bad \\q escape"',
    'userName eq "bad \\u12G4"',
    'userName eq "nul \\u0000"',
    'userName eq "lone \\ud800"',
    'userName eq "raw\ncontrol"',
    'nosuch eq "x"',
    'department eq "x"',
    'urn:example:User:userName eq "x"',
    'name eq "x"',
    'meta pr',
    'userName gt null',
    'userName eq true',
    'active gt true',
    'active co "t"',
    'active eq "yes"',
    'active eq 1',
    'meta.created eq "yesterday"',
    'meta.created eq "2015-02-30T00:00:00Z"',
    'meta.created eq 2015',
    'meta.created sw "2015"',
    'emails[type eq "work"',
    'emails[type eq "work"]]',
    'emails[]',
    'emails[emails.type eq "work"]',
    'emails[type eq "work"][value pr]',
    'emails[type eq "work"].nosuch eq "x"',
    'emails[type eq "work"].value',
    'emails[value[type pr]]',
    'userName[type eq "x"]',
    'name[givenName pr]',
    'emails.value[type eq "work"]',
    'emails[nosuch eq "x"]',
    'password[value pr]',
    '[userName pr]',
    'userName pr "x"',
    'and userName pr',
    'groups.value eq "x"',
    'groups[value eq "x"]',
    'schemas eq "urn:ietf:params:scim:schemas:core:2.0:User"',
  ])('refuses %j as invalidFilter', (text) => {
    expect(failure(() => parseScimUserFilter(text))).toEqual({
      status: 400,
      scimType: 'invalidFilter',
      detail: 'The filter is not valid',
    });
  });

  it('refuses filters past the bounds: length, comparisons, depth', () => {
    const refused = { status: 400, scimType: 'invalidFilter', detail: 'The filter is not valid' };
    const longValue = `userName eq "${'a'.repeat(2000 - 14)}"`;
    expect(longValue.length).toBe(2000);
    expect(parseScimUserFilter(longValue)).toEqual(cmp('userName', 'eq', 'a'.repeat(1986)));
    expect(failure(() => parseScimUserFilter(`${longValue} `))).toEqual(refused);
    const comparisons = (n: number) => Array.from({ length: n }, () => 'title pr').join(' or ');
    expect(parseScimUserFilter(comparisons(50))).toMatchObject({
      kind: 'or',
      filters: Array.from({ length: 50 }, () => pr('title')),
    });
    expect(failure(() => parseScimUserFilter(comparisons(51)))).toEqual(refused);
    expect(failure(() => parseScimUserFilter(`emails[type pr].value pr or ${comparisons(49)}`))).toEqual(refused);
    const nested = (n: number) => `${'not ('.repeat(n)}title pr${')'.repeat(n)}`;
    let expected: unknown = pr('title');
    for (let level = 0; level < 10; level += 1) expected = not(expected);
    expect(parseScimUserFilter(nested(10))).toEqual(expected);
    expect(failure(() => parseScimUserFilter(nested(11)))).toEqual(refused);
    expect(failure(() => parseScimUserFilter(`${'('.repeat(9)}emails[type pr]${')'.repeat(9)}`))).toBe('parsed');
    expect(failure(() => parseScimUserFilter(`${'('.repeat(10)}emails[type pr]${')'.repeat(10)}`))).toEqual(refused);
    expect(failure(() => parseScimUserFilter(`${'('.repeat(5000)}title pr${')'.repeat(5000)}`))).toEqual(refused);
  });

  it('never echoes the input in the error', () => {
    const error = failure(() => parseScimUserFilter('userName eq "<script>secret</script>" and'));
    expect(JSON.stringify(error)).not.toContain('secret');
  });

  it('reads the filters Okta and Entra send', () => {
    const sent: Array<[string, ScimUserFilter]> = [
      ['userName eq "isabella@example.com"', cmp('userName', 'eq', 'isabella@example.com') as ScimUserFilter],
      ['externalId eq "00u1dhhb1fkIGP7RL1d8"', cmp('externalId', 'eq', '00u1dhhb1fkIGP7RL1d8') as ScimUserFilter],
      [
        'emails[type eq "work"].value eq "a@b.example"',
        emails(and(cmp('emails.type', 'eq', 'work'), cmp('emails.value', 'eq', 'a@b.example'))) as ScimUserFilter,
      ],
      [
        'userName eq "7fe6d1e2-83e4-4a21-9f47-b1a4b6a5cc38"',
        cmp('userName', 'eq', '7fe6d1e2-83e4-4a21-9f47-b1a4b6a5cc38') as ScimUserFilter,
      ],
    ];
    for (const [text, expected] of sent) expect(parseScimUserFilter(text)).toEqual(expected);
  });
});

describe('parseScimGroupFilter', () => {
  it.each<[string, unknown]>([
    ['displayName eq "Admins"', cmp('displayName', 'eq', 'Admins')],
    ['DISPLAYNAME sw adm', cmp('displayName', 'sw', 'adm')],
    ['externalId eq "abc"', cmp('externalId', 'eq', 'abc')],
    [
      'members eq "2819c223-7f76-453a-919d-413861904646"',
      cmp('members.value', 'eq', '2819c223-7f76-453a-919d-413861904646'),
    ],
    [
      'members[value eq "2819c223-7f76-453a-919d-413861904646"]',
      {
        kind: 'valuePath',
        attribute: 'members',
        filter: cmp('members.value', 'eq', '2819c223-7f76-453a-919d-413861904646'),
      },
    ],
    ['members pr', pr('members.value')],
    ['members.display eq "x"', constant(false)],
    ['urn:ietf:params:scim:schemas:core:2.0:Group:displayName pr', pr('displayName')],
    ['meta.lastModified gt "2020-01-01T00:00:00Z"', cmp('meta.lastModified', 'gt', new Date('2020-01-01T00:00:00Z'))],
  ])('parses %s', (text, expected) => {
    expect(parseScimGroupFilter(text)).toEqual(expected);
  });

  it.each(['userName eq "x"', 'emails pr', 'members[type eq "x"', 'active eq true'])('refuses %j', (text) => {
    expect(failure(() => parseScimGroupFilter(text))).toMatchObject({ scimType: 'invalidFilter' });
  });
});

describe('parseScimSortBy', () => {
  it.each<[string, 'user' | 'group', string]>([
    ['userName', 'user', 'userName'],
    ['name.FamilyName', 'user', 'name.familyName'],
    ['META.CREATED', 'user', 'meta.created'],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', 'user', 'enterprise.department'],
    ['displayName', 'group', 'displayName'],
    ['id', 'group', 'id'],
  ])('resolves %s (%s) to %s', (text, resource, key) => {
    expect(resource === 'user' ? parseScimSortBy(text, 'user') : parseScimSortBy(text, 'group')).toBe(key);
  });

  it.each<[string, 'user' | 'group']>([
    ['emails', 'user'],
    ['emails.value', 'user'],
    ['name', 'user'],
    ['phoneNumbers', 'user'],
    ['nosuch', 'user'],
    ['members', 'group'],
    ['userName', 'group'],
  ])('refuses %s (%s) with invalidValue', (text, resource) => {
    const run = () => (resource === 'user' ? parseScimSortBy(text, 'user') : parseScimSortBy(text, 'group'));
    expect(failure(run)).toEqual({
      status: 400,
      scimType: 'invalidValue',
      detail: 'The sortBy attribute is not supported',
    });
  });
});
