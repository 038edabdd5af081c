import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import {
  federationStorageKey,
  isToken43,
  openFederationSecret,
  randomToken43,
  sealFederationSecret,
  sha256Base64Url,
} from './federation-keys.js';

const random = { bytes: (size: number) => new Uint8Array(randomBytes(size)) };
const KEY = randomBytes(32);
const ORG = '0190a0a0-0000-7000-8000-000000000000';

describe('federation keys and sealing', () => {
  it('derives the storage key from the tenant, provider and issuer (identity-http §6)', () => {
    const key = federationStorageKey('oidc', ORG, 'okta', 'https://acme.okta.com');
    expect(key).toMatch(/^oidc\.[A-Za-z0-9_-]{43}$/);
    expect(federationStorageKey('oidc', ORG, 'okta', 'https://acme.okta.com')).toBe(key);
    expect(federationStorageKey('oidc', ORG, 'okta', 'https://other.okta.com')).not.toBe(key);
    expect(federationStorageKey('saml', ORG, 'okta', 'https://acme.okta.com')).toMatch(/^saml\./);
    // Length prefixing: moving a character between fields changes the key.
    expect(federationStorageKey('oidc', ORG, 'okt', 'ahttps://acme.okta.com')).not.toBe(key);
  });

  it('seals and opens, bound to key, purpose and binding', () => {
    const sealed = sealFederationSecret(KEY, random, 'client_secret', [ORG, 'okta'], 's3cret');
    expect(sealed.includes(Buffer.from('s3cret'))).toBe(false);
    expect(openFederationSecret(KEY, 'client_secret', [ORG, 'okta'], sealed)).toBe('s3cret');
    expect(openFederationSecret(randomBytes(32), 'client_secret', [ORG, 'okta'], sealed)).toBeUndefined();
    expect(openFederationSecret(KEY, 'pkce_verifier', [ORG, 'okta'], sealed)).toBeUndefined();
    expect(openFederationSecret(KEY, 'client_secret', [ORG, 'other'], sealed)).toBeUndefined();
    const tampered = Buffer.from(sealed);
    tampered[tampered.byteLength - 1]! ^= 1;
    expect(openFederationSecret(KEY, 'client_secret', [ORG, 'okta'], tampered)).toBeUndefined();
    expect(openFederationSecret(KEY, 'client_secret', [ORG, 'okta'], Buffer.alloc(5))).toBeUndefined();
  });

  it('makes 43-char selectors and digests', () => {
    const token = randomToken43(random);
    expect(isToken43(token)).toBe(true);
    expect(isToken43(`${token}A`)).toBe(false);
    expect(isToken43(undefined)).toBe(false);
    expect(sha256Base64Url('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });
});
