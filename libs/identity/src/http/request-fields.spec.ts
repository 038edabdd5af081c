import { describe, it, expect } from '@jest/globals';
import { codePointLength, decodeBody } from './request-fields.js';

const schema = {
  token: { kind: 'text', min: 20, max: 512 },
  displayName: { kind: 'text', min: 1, max: 200 },
  deviceLabel: { kind: 'text', min: 1, max: 200, optional: true },
  organizationSlug: { kind: 'slug', optional: true },
} as const;
const token = 'a'.repeat(43);

describe('decodeBody', () => {
  it('accepts a body that follows the schema, with optional fields omitted', () => {
    expect(decodeBody({ token, displayName: 'Ada' }, schema)).toEqual({ token, displayName: 'Ada' });
    expect(decodeBody({ token, displayName: 'Ada', deviceLabel: 'Laptop', organizationSlug: 'acme' }, schema)).toEqual({
      token,
      displayName: 'Ada',
      deviceLabel: 'Laptop',
      organizationSlug: 'acme',
    });
  });

  it('rejects unknown keys, nulls, wrong types, missing fields and non-objects', () => {
    for (const bad of [
      { token, displayName: 'Ada', extra: 1 },
      { token, displayName: 'Ada', deviceLabel: null },
      { token, displayName: 5 },
      { token },
      [token],
      'token',
      null,
    ]) {
      expect(decodeBody(bad, schema)).toBeUndefined();
    }
  });

  it('counts code points, refuses C0 controls and DEL, and checks bounds', () => {
    expect(codePointLength('😀😀')).toBe(2);
    expect(decodeBody({ token, displayName: '😀'.repeat(200) }, schema)).toBeDefined();
    expect(decodeBody({ token, displayName: '😀'.repeat(201) }, schema)).toBeUndefined();
    expect(decodeBody({ token, displayName: '' }, schema)).toBeUndefined();
    expect(decodeBody({ token, displayName: 'a\u0000b' }, schema)).toBeUndefined();
    expect(decodeBody({ token, displayName: 'a\u007fb' }, schema)).toBeUndefined();
    expect(decodeBody({ token: 'short', displayName: 'Ada' }, schema)).toBeUndefined();
    expect(decodeBody({ token, displayName: 'Ada', organizationSlug: 'Acme' }, schema)).toBeUndefined();
  });
});
