import { describe, expect, it } from '@jest/globals';
import { createTestExchange } from '@tessera/web';
import fc from 'fast-check';
import { OAuthError } from '../errors/oauth.errors.js';
import { parseOAuthForm, readOAuthForm } from './oauth-form.js';

const TOKEN = ['grant_type', 'device_code', 'refresh_token', 'client_id'] as const;
const FORM = 'application/x-www-form-urlencoded';
// Lone surrogates are not text and cannot be UTF-8 encoded.
const wellFormed = (value: string): boolean => (value as string & { isWellFormed(): boolean }).isWellFormed();

describe('parseOAuthForm (identity-http §1 Form bodies)', () => {
  it('decodes the endpoint parameters of a form', () => {
    expect(
      parseOAuthForm(
        'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=abc_-&client_id=cli',
        TOKEN,
      ),
    ).toEqual({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'abc_-', client_id: 'cli' });
  });

  it('decodes + as a space and %XX in either case, strict UTF-8', () => {
    expect(parseOAuthForm('scope=identity.profile+identity.organizations', ['scope'])).toEqual({
      scope: 'identity.profile identity.organizations',
    });
    expect(parseOAuthForm('client_name=Caf%C3%a9%2B%25%26%3D', ['client_name'])).toEqual({ client_name: 'Café+%&=' });
    expect(parseOAuthForm('client_name=%F0%9F%94%91', ['client_name'])).toEqual({ client_name: '\u{1f511}' });
  });

  it('treats a parameter with an empty value as omitted (RFC 6749 §3.1)', () => {
    expect(parseOAuthForm('client_id=&scope=a.b', ['client_id', 'scope'])).toEqual({ scope: 'a.b' });
  });

  it('ignores parameters the endpoint does not know, but still checks them', () => {
    expect(parseOAuthForm('client_id=cli&token_type_hint=refresh_token&x=1&x=2', ['client_id'])).toEqual({
      client_id: 'cli',
    });
    expect(parseOAuthForm('client_id=cli&x=%ZZ', ['client_id'])).toBeUndefined();
  });

  it('keeps a parameter named __proto__ as a plain field (no prototype pollution)', () => {
    const fields = parseOAuthForm('__proto__=x&constructor=y', ['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(fields)).toBeNull();
    expect(Object.keys(fields!)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
  });

  it('reads an empty body as no fields', () => {
    expect(parseOAuthForm('', TOKEN)).toEqual({});
  });

  it.each([
    ['a duplicate single-valued parameter', 'client_id=a&client_id=b'],
    ['a duplicate single-valued parameter with an empty value', 'client_id=a&client_id='],
    ['a duplicate single-valued parameter spelled with an escape', 'client_id=a&client%5Fid=b'],
    ['a raw space', 'client_id=a b'],
    ['a raw tab', 'client_id=a\tb'],
    ['a raw newline', 'client_id=a\nb'],
    ['a raw DEL', 'client_id=a\u007f'],
    ['a raw non-ASCII character', 'client_id=caf\u00e9'],
    ['a field without =', 'client_id'],
    ['a field with an empty name', '=cli'],
    ['a second raw = in a field', 'client_id=a=b'],
    ['an empty field between &', 'client_id=a&&scope=b'],
    ['a leading &', '&client_id=a'],
    ['a trailing &', 'client_id=a&'],
    ['a truncated escape', 'client_id=a%4'],
    ['an escape at the end', 'client_id=a%'],
    ['a non-hex escape', 'client_id=a%G1'],
    ['a percent-encoded invalid UTF-8 byte', 'client_id=%FF'],
    ['a percent-encoded overlong UTF-8 sequence', 'client_id=%C0%AF'],
    ['a percent-encoded lone surrogate', 'client_id=%ED%A0%80'],
    ['a name of 101 characters', `${'n'.repeat(101)}=1`],
    ['a value of 8193 characters', `client_id=${'v'.repeat(8193)}`],
    ['33 fields', Array.from({ length: 33 }, (_, i) => `f${i}=1`).join('&')],
  ])('refuses %s', (_name, body) => {
    expect(parseOAuthForm(body, TOKEN)).toBeUndefined();
  });

  it('accepts the limits themselves: 32 fields, a 100-character name, an 8192-character value', () => {
    expect(parseOAuthForm(Array.from({ length: 32 }, (_, i) => `f${i}=1`).join('&'), ['f31'])).toEqual({ f31: '1' });
    expect(parseOAuthForm(`${'n'.repeat(100)}=1`, ['n'.repeat(100)])).toEqual({ ['n'.repeat(100)]: '1' });
    expect(parseOAuthForm(`client_id=${'v'.repeat(8192)}`, ['client_id'])?.client_id).toHaveLength(8192);
    // Characters, not bytes: 8192 three-byte characters are still 8192 characters.
    expect(parseOAuthForm(`client_name=${'%E2%82%AC'.repeat(8192)}`, ['client_name'])?.client_name).toHaveLength(8192);
  });

  it('round-trips any parameters a conforming encoder (URLSearchParams) writes (property)', () => {
    const name = fc.string({ minLength: 1, maxLength: 20 }).filter(wellFormed);
    const value = fc.string({ maxLength: 40 }).filter(wellFormed);
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, value), { maxLength: 32, selector: ([n]) => n }), (pairs) => {
        const body = new URLSearchParams(pairs).toString();
        const names = pairs.map(([n]) => n);
        const expected = Object.fromEntries(pairs.filter(([, v]) => v !== ''));
        expect(parseOAuthForm(body, names)).toEqual(expected);
      }),
    );
  });

  it('never accepts a body with a raw byte outside 0x21..0x7E, and never throws (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const result = parseOAuthForm(bytes, TOKEN);
        if (bytes.some((b) => b < 0x21 || b > 0x7e)) expect(result).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '=', '&', '%', '+', '2', 'F', 'client_id') }), (body) => {
        parseOAuthForm(body, TOKEN);
      }),
    );
  });
});

async function read(init: { headers?: Record<string, string | string[]>; body?: string | Buffer }, limit = 1024) {
  const { exchange } = createTestExchange({ method: 'POST', url: '/oauth/token', ...init });
  return readOAuthForm(exchange, limit, TOKEN);
}

async function expectInvalidRequest(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OAuthError);
  expect((error as OAuthError).code).toBe('invalid_request');
}

describe('readOAuthForm (content type, length, body limit)', () => {
  it.each([FORM, 'Application/X-WWW-Form-Urlencoded', `${FORM};charset=UTF-8`, `${FORM}; charset="utf-8"`])(
    'reads a body sent as %s',
    async (type) => {
      await expect(read({ headers: { 'content-type': type }, body: 'client_id=cli' })).resolves.toEqual({
        client_id: 'cli',
      });
    },
  );

  it.each<[string, Record<string, string | string[]>]>([
    ['no Content-Type', {}],
    ['two Content-Type headers', { 'content-type': [FORM, FORM] }],
    ['JSON', { 'content-type': 'application/json' }],
    ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }],
    ['another charset', { 'content-type': `${FORM}; charset=iso-8859-1` }],
    ['another parameter', { 'content-type': `${FORM}; boundary=x` }],
    ['two Content-Length headers', { 'content-type': FORM, 'content-length': ['13', '13'] }],
    ['a negative Content-Length', { 'content-type': FORM, 'content-length': '-1' }],
    ['a Content-Length over the limit', { 'content-type': FORM, 'content-length': '1025' }],
  ])('refuses %s with invalid_request', async (_name, headers) => {
    await expectInvalidRequest(read({ headers, body: 'client_id=cli' }));
  });

  it('refuses a body over limits.formBodyBytes even without Content-Length', async () => {
    const { exchange } = createTestExchange({
      method: 'POST',
      headers: { 'content-type': FORM, 'transfer-encoding': 'chunked' },
      body: `client_id=${'a'.repeat(100)}`,
    });
    delete (exchange.raw.req.headers as Record<string, unknown>)['content-length'];
    await expectInvalidRequest(readOAuthForm(exchange, 50, TOKEN));
  });

  it('refuses a malformed form with invalid_request', async () => {
    await expectInvalidRequest(read({ headers: { 'content-type': FORM }, body: 'client_id=a&client_id=b' }));
  });
});
