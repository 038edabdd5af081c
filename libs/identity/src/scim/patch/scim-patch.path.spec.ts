import { describe, expect, it } from '@jest/globals';
import { scimFailure } from '../../../../../test/support/scim/scim-failure.js';
import { matchScimItem, parseScimPatchPath, scimFilterEqualities, type ScimItemFilter } from './scim-patch.path.js';

function filterOf(path: string): ScimItemFilter {
  const filter = parseScimPatchPath(path).filter;
  if (filter === null) throw new Error('expected a filter');
  return filter;
}

const WORK = { value: 'Ada@Example.com', type: 'work', primary: true };
const HOME = { value: 'ada@home.example', primary: false };

const scimType = (run: () => unknown): string | undefined => scimFailure(run).scimType;

describe('parseScimPatchPath', () => {
  it('splits attribute, filter and sub-attribute', () => {
    expect(parseScimPatchPath('emails[type eq "work"].value')).toEqual({
      attribute: 'emails',
      filter: { kind: 'compare', attribute: 'type', op: 'eq', value: 'work' },
      sub: 'value',
    });
    expect(parseScimPatchPath(' name.givenName ')).toEqual({ attribute: 'name.givenName', filter: null, sub: null });
    const urn = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department';
    expect(parseScimPatchPath(urn).attribute).toBe(urn);
  });

  it('keeps brackets and escaped quotes inside quoted values', () => {
    expect(filterOf('members[value eq "a]b\\"c"]')).toEqual({
      kind: 'compare',
      attribute: 'value',
      op: 'eq',
      value: 'a]b"c',
    });
  });

  it('parses not, parentheses, pr and typed bare values, operators in any case', () => {
    expect(filterOf('emails[NOT (type Eq work) AnD primary eq TRUE]')).toEqual({
      kind: 'and',
      left: { kind: 'not', filter: { kind: 'compare', attribute: 'type', op: 'eq', value: 'work' } },
      right: { kind: 'compare', attribute: 'primary', op: 'eq', value: true },
    });
    expect(filterOf('emails[value pr]')).toEqual({ kind: 'present', attribute: 'value' });
  });

  it('refuses filters beyond 50 comparisons or 10 levels of nesting', () => {
    const many = Array.from({ length: 51 }, (_, index) => `value eq "u${index}"`).join(' or ');
    expect(scimType(() => parseScimPatchPath(`members[${many}]`))).toBe('invalidFilter');
    const deep = `${'('.repeat(12)}value eq "x"${')'.repeat(12)}`;
    expect(scimType(() => parseScimPatchPath(`members[${deep}]`))).toBe('invalidFilter');
    expect(scimType(() => parseScimPatchPath(`emails[type eq "work") ]`))).toBe('invalidFilter');
    expect(scimType(() => parseScimPatchPath('x'.repeat(1001)))).toBe('invalidPath');
    expect(scimType(() => parseScimPatchPath(''))).toBe('invalidPath');
  });
});

describe('matchScimItem', () => {
  it('compares strings case-insensitively and booleans with their string forms', () => {
    expect(matchScimItem(filterOf('emails[value eq "ada@example.com"]'), WORK)).toBe(true);
    expect(matchScimItem(filterOf('emails[type eq "WORK" and primary eq true]'), WORK)).toBe(true);
    expect(matchScimItem(filterOf('emails[primary eq "True"]'), WORK)).toBe(true);
    expect(matchScimItem(filterOf('emails[value ew ".example" or value co "nothing"]'), HOME)).toBe(true);
    expect(matchScimItem(filterOf('emails[value sw "ada@e"]'), WORK)).toBe(true);
  });

  it('treats an absent sub-attribute as matching only ne and eq null', () => {
    expect(matchScimItem(filterOf('emails[type eq "work"]'), HOME)).toBe(false);
    expect(matchScimItem(filterOf('emails[type ne "work"]'), HOME)).toBe(true);
    expect(matchScimItem(filterOf('emails[type pr]'), HOME)).toBe(false);
    expect(matchScimItem(filterOf('emails[type eq null]'), HOME)).toBe(true);
    expect(matchScimItem(filterOf('emails[type ne null]'), WORK)).toBe(true);
  });

  it('orders strings by code point for gt/ge/lt/le', () => {
    expect(matchScimItem(filterOf('emails[value gt "a"]'), WORK)).toBe(true);
    expect(matchScimItem(filterOf('emails[value lt "a"]'), WORK)).toBe(false);
    expect(matchScimItem(filterOf('emails[value ge "ada@example.com"]'), WORK)).toBe(true);
    expect(matchScimItem(filterOf('emails[value le "ada@example.com"]'), WORK)).toBe(true);
  });
});

describe('scimFilterEqualities', () => {
  it('collects the eq values joined by and, nothing under or/not', () => {
    expect(scimFilterEqualities(filterOf('emails[type eq "work" and primary eq true]'))).toEqual({
      type: 'work',
      primary: true,
    });
    expect(scimFilterEqualities(filterOf('emails[type eq "work" or type eq "home"]'))).toEqual({});
  });
});
