import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { deviceAccessTokenExpiresAt, expiresInSeconds, formatTokenScope, parseDeviceScope } from './device-scope.js';

const allowlist = ['identity.profile', 'identity.organizations', 'package.publish', 'package.read'];

describe('device scope (identity-http §5)', () => {
  it('reads space-separated allowlisted capabilities in request order', () => {
    expect(parseDeviceScope('package.publish identity.profile', allowlist)).toEqual([
      'package.publish',
      'identity.profile',
    ]);
    expect(parseDeviceScope('identity.profile', allowlist)).toEqual(['identity.profile']);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['upper-case', 'Package.Publish'],
    ['not allowlisted', 'audit.read'],
    ['not a capability name', 'package'],
    ['repeated', 'package.read package.read'],
    ['doubled space', 'package.read  package.publish'],
    ['leading space', ' package.read'],
    ['trailing space', 'package.read '],
    ['tab-separated', 'package.read\tpackage.publish'],
    ['comma-separated', 'package.read,package.publish'],
  ])('refuses a %s scope', (_name, scope) => {
    expect(parseDeviceScope(scope, allowlist)).toBeUndefined();
  });

  it('accepts 64 capabilities and refuses 65, and refuses a scope over 4096 characters', () => {
    const many = Array.from({ length: 65 }, (_, i) => `cap.n${i}`);
    expect(parseDeviceScope(many.slice(0, 64).join(' '), many)).toHaveLength(64);
    expect(parseDeviceScope(many.join(' '), many)).toBeUndefined();
    // Capability names of 200 characters: 20 of them are 4019 characters, 21 are 4220.
    const long = Array.from({ length: 21 }, (_, i) => `c.n${String(i).padStart(2, '0')}${'x'.repeat(195)}`);
    expect(long[0]).toHaveLength(200);
    expect(parseDeviceScope(long.slice(0, 20).join(' '), long)).toHaveLength(20);
    expect(long.join(' ').length).toBe(4220);
    expect(parseDeviceScope(long.join(' '), long)).toBeUndefined();
  });

  it('only ever returns distinct allowlisted names that spell the scope (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...allowlist, 'Audit.read', '', 'x.y'), { maxLength: 6 }), (parts) => {
        const parsed = parseDeviceScope(parts.join(' '), allowlist);
        if (parsed === undefined) return;
        expect(parsed.join(' ')).toBe(parts.join(' '));
        expect(new Set(parsed).size).toBe(parsed.length);
        expect(parsed.every((name) => allowlist.includes(name))).toBe(true);
      }),
    );
  });

  it('formats the token scope sorted alphabetically, space-joined', () => {
    expect(formatTokenScope(['package.publish', 'identity.profile', 'identity.organizations'])).toBe(
      'identity.organizations identity.profile package.publish',
    );
  });
});

describe('device access-token timing (identity-model §3)', () => {
  const now = new Date('2026-07-14T08:15:30Z');

  it('expires after its lifetime, capped at the family expiry', () => {
    expect(deviceAccessTokenExpiresAt(now, 900, new Date('2026-08-13T08:15:30Z'))).toEqual(
      new Date('2026-07-14T08:30:30Z'),
    );
    expect(deviceAccessTokenExpiresAt(now, 900, new Date('2026-07-14T08:20:00Z'))).toEqual(
      new Date('2026-07-14T08:20:00Z'),
    );
  });

  it('reports expires_in as the whole seconds left, never negative', () => {
    expect(expiresInSeconds(new Date('2026-07-14T08:30:30Z'), now)).toBe(900);
    expect(expiresInSeconds(new Date('2026-07-14T08:30:29.999Z'), now)).toBe(899);
    expect(expiresInSeconds(now, now)).toBe(0);
    expect(expiresInSeconds(new Date('2026-07-14T08:00:00Z'), now)).toBe(0);
  });
});
