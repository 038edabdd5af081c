import { describe, expect, it } from '@jest/globals';
import { createTestExchange } from '@tessera/web';
import { IdentityError } from '../errors/identity.errors.js';
import {
  federationCsrfCookie,
  isFederationCallbackPath,
  oidcCallbackQuery,
  requireNoQueryOrBody,
  samlCallbackForm,
  stateCookie,
  stateSelector,
} from './federation-http.js';

const SELECTOR = 'A'.repeat(42) + 'A';
const CALLBACK = '/identity/v1/federation/0190a0a0-0000-7000-8000-000000000000/okta/callback';
const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof IdentityError ? error.code : 'other';
  }
};
const query = (raw: string) => oidcCallbackQuery(createTestExchange({ url: `${CALLBACK}?${raw}` }).exchange);

describe('federation HTTP rules (identity-http §6, §9.1)', () => {
  it('recognises only the callback path as exempt from the session CSRF check', () => {
    expect(isFederationCallbackPath(CALLBACK)).toBe(true);
    expect(isFederationCallbackPath(CALLBACK.replace('callback', 'start'))).toBe(false);
    expect(isFederationCallbackPath(`${CALLBACK}/x`)).toBe(false);
    expect(isFederationCallbackPath('/identity/v1/organizations/x/federation/providers')).toBe(false);
  });

  it('writes the state cookies with the contract attributes (SAML: SameSite=None)', () => {
    expect(stateCookie('oidc', SELECTOR, 300)).toBe(
      `__Host-tessera_oidc_state=${SELECTOR}; Max-Age=300; Path=/; Secure; HttpOnly; SameSite=Lax`,
    );
    expect(stateCookie('saml', '', 0)).toBe(
      '__Host-tessera_saml_state=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=None',
    );
    expect(federationCsrfCookie('tok', 300)).toBe('__Host-tessera_csrf=tok; Max-Age=300; Path=/; Secure; SameSite=Lax');
    expect(federationCsrfCookie('tok', 300)).not.toMatch(/HttpOnly/);
  });

  it('reads exactly one well-formed state cookie', () => {
    const one = createTestExchange({
      url: CALLBACK,
      headers: { cookie: `a=1; __Host-tessera_oidc_state=${SELECTOR}` },
    });
    expect(stateSelector(one.exchange, 'oidc')).toBe(SELECTOR);
    expect(stateSelector(one.exchange, 'saml')).toBeUndefined();
    const two = createTestExchange({
      url: CALLBACK,
      headers: { cookie: `__Host-tessera_oidc_state=${SELECTOR}; __Host-tessera_oidc_state=${SELECTOR}` },
    });
    expect(stateSelector(two.exchange, 'oidc')).toBeUndefined();
    const short = createTestExchange({ url: CALLBACK, headers: { cookie: '__Host-tessera_oidc_state=abc' } });
    expect(stateSelector(short.exchange, 'oidc')).toBeUndefined();
  });

  it('accepts code + state (+ iss) and an authorization error response', () => {
    const ok = query(`code=abc&state=${SELECTOR}&iss=http%3A%2F%2Flocalhost%3A4000`);
    expect([...ok.keys()]).toEqual(['code', 'state', 'iss']);
    expect(ok.get('iss')).toBe('http://localhost:4000');
    expect(query(`error=access_denied&error_description=no&state=${SELECTOR}`).get('error')).toBe('access_denied');
  });

  it.each([
    ['no query', ''],
    ['a missing state', 'code=abc'],
    ['a missing code', `state=${SELECTOR}`],
    ['a repeated parameter', `code=a&code=b&state=${SELECTOR}`],
    ['an unknown parameter', `code=a&state=${SELECTOR}&x=1`],
    ['an empty value', `code=&state=${SELECTOR}`],
    ['a short state', 'code=a&state=short'],
    ['a bad escape', `code=%zz&state=${SELECTOR}`],
    ['a name without value', `code&state=${SELECTOR}`],
    ['code beside error', `error=x&code=a&state=${SELECTOR}`],
    ['an over-long query', `code=${'a'.repeat(12 * 1024)}&state=${SELECTOR}`],
  ])('refuses a callback query with %s (400)', (_name, raw) => {
    expect(code(() => query(raw))).toBe('request_invalid');
  });

  it('refuses a query or a body where none is allowed', () => {
    expect(code(() => requireNoQueryOrBody(createTestExchange({ url: '/x' }).exchange))).toBeUndefined();
    expect(code(() => requireNoQueryOrBody(createTestExchange({ url: '/x?a=1' }).exchange))).toBe('request_invalid');
    const body = createTestExchange({ url: '/x', headers: { 'content-length': '2' }, body: '{}' });
    expect(code(() => requireNoQueryOrBody(body.exchange))).toBe('request_invalid');
  });

  describe('SAML HTTP-POST form', () => {
    const form = (body: string, type = 'application/x-www-form-urlencoded') =>
      samlCallbackForm(
        createTestExchange({
          method: 'POST',
          url: CALLBACK,
          headers: { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) },
          body,
        }).exchange,
      );

    it('reads exactly SAMLResponse and RelayState', async () => {
      await expect(form(`SAMLResponse=PD94%2B&RelayState=${SELECTOR}`)).resolves.toEqual({
        samlResponse: 'PD94+',
        relayState: SELECTOR,
      });
    });

    it.each([
      ['a missing RelayState', 'SAMLResponse=abc'],
      ['an extra field', `SAMLResponse=abc&RelayState=${SELECTOR}&x=1`],
      ['a repeated SAMLResponse', `SAMLResponse=a&SAMLResponse=b&RelayState=${SELECTOR}`],
    ])('refuses %s (400)', async (_name, body) => {
      await expect(form(body)).rejects.toMatchObject({ code: 'request_invalid' });
    });

    it('refuses another content type (400)', async () => {
      await expect(form(`SAMLResponse=a&RelayState=${SELECTOR}`, 'application/json')).rejects.toMatchObject({
        code: 'request_invalid',
      });
    });
  });
});
