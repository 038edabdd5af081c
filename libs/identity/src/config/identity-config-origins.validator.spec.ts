import { describe, expect, it } from '@jest/globals';
import { IdentityConfigError, type IdentityConfigRule } from '../errors/identity-boot.errors.js';
import type { IdentityConfig, SessionCookieConfig } from './identity.config.js';
import {
  developmentIdentityConfig as dev,
  identitySecretReferences,
  productionIdentityConfig as prod,
} from './identity-config.fixtures.js';
import { createIdentityConfig } from './identity-config.validator.js';

function expectRule(input: IdentityConfig, rule: IdentityConfigRule, fragment: string): void {
  let caught: unknown;
  try {
    createIdentityConfig(input);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(IdentityConfigError);
  expect((caught as IdentityConfigError).rule).toBe(rule);
  expect((caught as IdentityConfigError).message).toContain(fragment);
}

const expectCookieRule = (input: IdentityConfig, fragment: string): void =>
  expectRule(input, 'session_cookie', fragment);

const cookie = (value: Partial<SessionCookieConfig> | Record<string, unknown>): Partial<SessionCookieConfig> =>
  value as Partial<SessionCookieConfig>;

describe('session cookie rules (identity-http §9.1)', () => {
  it('refuses a name that is not an HTTP token', () => {
    expectCookieRule(dev({ sessionCookie: { name: 'tessera session' } }), 'must be an HTTP token');
    expectCookieRule(dev({ sessionCookie: { name: 'a;b' } }), 'must be an HTTP token');
  });

  it('requires Secure, no Domain and Path=/ for the __Host- prefix (any case)', () => {
    expectCookieRule(dev({ sessionCookie: { secure: false } }), '__Host- prefix, which requires secure: true');
    expectCookieRule(dev({ sessionCookie: { name: '__host-x', secure: false } }), 'requires secure: true');
    expectCookieRule(prod({ sessionCookie: { domain: 'example.com' } }), '__Host- prefix, which forbids a domain');
    expectCookieRule(dev({ sessionCookie: { path: '/app' } }), 'requires path "/"');
  });

  it('requires Secure for the __Secure- prefix', () => {
    expectCookieRule(
      dev({ sessionCookie: { name: '__Secure-s', secure: false } }),
      '__Secure- prefix, which requires secure: true',
    );
  });

  it('requires Secure for SameSite=None', () => {
    expectCookieRule(
      dev({ sessionCookie: { name: 'sid', secure: false, sameSite: 'none' } }),
      'sameSite "none" requires secure: true',
    );
  });

  it('never allows HttpOnly to be disabled', () => {
    expectCookieRule(dev({ sessionCookie: cookie({ httpOnly: false }) }), 'httpOnly cannot be disabled');
  });

  it('requires Secure in staging and production even without a prefix', () => {
    expectCookieRule(prod({ sessionCookie: { name: 'sid', secure: false } }), 'must be true in production');
  });

  it('requires a Domain to be the RP ID or under it, and to cover publicBaseUrl', () => {
    expectCookieRule(prod({ sessionCookie: { name: 'sid', domain: 'evil.com' } }), 'must be rp.id or a subdomain');
    expectCookieRule(prod({ sessionCookie: { name: 'sid', domain: 'com' } }), 'or a subdomain of it');
    expectCookieRule(
      prod({ sessionCookie: { name: 'sid', domain: 'app.example.com' } }),
      'does not cover the publicBaseUrl host',
    );
    expect(
      createIdentityConfig(prod({ sessionCookie: { name: 'sid', domain: '.example.com' } })).sessionCookie.domain,
    ).toBe('.example.com');
  });

  it('refuses malformed paths, SameSite values and Secure flags', () => {
    expectCookieRule(dev({ sessionCookie: { name: 'sid', path: 'app' } }), 'must start with "/"');
    expectCookieRule(dev({ sessionCookie: { name: 'sid', path: '/a;b' } }), 'must start with "/"');
    expectCookieRule(
      dev({ sessionCookie: cookie({ sameSite: 'Lax' }) }),
      "sessionCookie.sameSite must be one of 'strict', 'lax', 'none'",
    );
    expectCookieRule(dev({ sessionCookie: cookie({ secure: 'yes' }) }), 'secure must be a boolean');
  });

  it('accepts a non-prefixed, non-secure cookie on loopback development', () => {
    expect(
      createIdentityConfig(dev({ sessionCookie: { name: 'tessera_session', secure: false } })).sessionCookie.secure,
    ).toBe(false);
  });
});

describe('validateIdentityConfig: origins and RP ID', () => {
  it.each([
    ['a trailing slash', 'https://id.example.com/', '(keep only the scheme, host and port)'],
    ['a path', 'https://id.example.com/app', 'without path'],
    ['a query', 'https://id.example.com?x=1', 'without path, query'],
    ['upper case', 'https://ID.example.com', 'in lowercase'],
    ['a default port', 'https://id.example.com:443', 'default port'],
    ['user-info', 'https://user@id.example.com', 'exact origin'],
    ['no scheme', 'id.example.com', 'exact origin'],
  ])('refuses an allowed origin with %s', (_name, origin, fragment) => {
    expectRule(prod({ allowedOrigins: ['https://id.example.com', origin] }), 'origin_not_exact', fragment);
  });

  it('refuses an origin listed twice and an empty list', () => {
    expectRule(
      prod({ allowedOrigins: ['https://id.example.com', 'https://id.example.com'] }),
      'origin_not_exact',
      'listed twice',
    );
    expectRule(prod({ allowedOrigins: [] }), 'origin_not_exact', 'at least one origin');
  });

  it('requires publicBaseUrl to be an exact allowed origin', () => {
    expectRule(
      prod({ allowedOrigins: ['https://app.example.com'] }),
      'public_base_url',
      'must also be listed in allowedOrigins',
    );
    expectRule(prod({ publicBaseUrl: 'https://id.example.com/' }), 'origin_not_exact', 'publicBaseUrl');
    expectRule({ ...dev(), publicBaseUrl: undefined as never }, 'public_base_url', 'publicBaseUrl must be a string');
  });

  it('refuses origins whose host is not the RP ID or under it', () => {
    expectRule(
      prod({ allowedOrigins: ['https://id.example.com', 'https://evil.com'] }),
      'origin_outside_rp_id',
      'equal to or under rp.id',
    );
    expectRule(
      prod({ allowedOrigins: ['https://id.example.com', 'https://notexample.com'] }),
      'origin_outside_rp_id',
      'allowedOrigins[1] must have a host equal to or under rp.id',
    );
  });

  it('refuses plain HTTP to non-loopback hosts in development', () => {
    expectRule(
      dev({
        rp: { id: 'dev.test', name: 'T' },
        publicBaseUrl: 'http://app.dev.test',
        allowedOrigins: ['http://app.dev.test'],
      }),
      'origin_insecure',
      'allowed only for localhost',
    );
  });

  it('requires HTTPS and non-loopback hosts in staging and production', () => {
    expectRule(
      prod({ allowedOrigins: ['https://id.example.com', 'http://app.example.com'] }),
      'origin_insecure',
      'must use https://',
    );
    expectRule(
      prod({ allowedOrigins: ['https://id.example.com', 'https://localhost'] }),
      'origin_insecure',
      'non-loopback host',
    );
    expectRule(
      {
        ...prod(),
        environment: 'staging',
        secrets: identitySecretReferences('staging'),
        publicBaseUrl: 'http://id.example.com',
        allowedOrigins: ['http://id.example.com'],
      },
      'origin_insecure',
      'in staging',
    );
  });

  it.each([
    ['upper case', 'Example.com', 'lowercase domain name'],
    ['a scheme', 'https://example.com', 'without scheme'],
    ['an IP address', '127.0.0.1', 'domain name'],
    ['a port', 'example.com:443', 'port'],
  ])('refuses an RP ID with %s', (_name, id, fragment) => {
    expectRule(prod({ rp: { id, name: 'Example' } }), 'rp_invalid', fragment);
  });

  it('refuses a loopback or single-label RP ID in production and an empty RP name', () => {
    expectRule(prod({ rp: { id: 'localhost', name: 'X' } }), 'rp_invalid', 'not a loopback or single-label');
    expectRule(prod({ rp: { id: 'intranet', name: 'X' } }), 'rp_invalid', 'registrable domain');
    expectRule(prod({ rp: { id: 'example.com', name: '  ' } }), 'rp_invalid', 'rp.name');
  });
});
