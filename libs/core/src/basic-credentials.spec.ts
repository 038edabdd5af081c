import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_BASIC_AUTHORIZATION_LENGTH, parseBasicAuthorization } from './basic-credentials.js';

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

describe('parseBasicAuthorization', () => {
  it('parses the RFC 7617 example', () => {
    expect(parseBasicAuthorization('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==')).toEqual({
      userId: 'Aladdin',
      password: 'open sesame',
    });
  });

  it('matches the scheme case-insensitively and accepts several spaces before the token', () => {
    expect(parseBasicAuthorization(`bAsIc   ${b64('u:p')}`)).toEqual({ userId: 'u', password: 'p' });
  });

  it('splits at the first colon, so passwords may contain colons, and allows an empty password', () => {
    expect(parseBasicAuthorization(`Basic ${b64('user:pa:ss')}`)).toEqual({ userId: 'user', password: 'pa:ss' });
    expect(parseBasicAuthorization(`Basic ${b64('user:')}`)).toEqual({ userId: 'user', password: '' });
  });

  it('accepts the standard alphabet including + and /', () => {
    expect(parseBasicAuthorization('Basic dTp+fn4=')).toEqual({ userId: 'u', password: '~~~' });
    expect(parseBasicAuthorization('Basic dTo/Pz4=')).toEqual({ userId: 'u', password: '??>' });
  });

  it('decodes UTF-8 user-ids and passwords (charset="UTF-8")', () => {
    expect(parseBasicAuthorization(`Basic ${b64('test:123£')}`)).toEqual({ userId: 'test', password: '123£' });
  });

  it.each([
    ['another scheme', `Bearer ${b64('u:p')}`],
    ['no token', 'Basic'],
    ['no space', `Basic${b64('u:p')}`],
    ['a tab instead of a space', `Basic\t${b64('u:p')}`],
    ['no colon', `Basic ${b64('userpass')}`],
    ['an empty user-id', `Basic ${b64(':password')}`],
    ['missing padding', `Basic ${b64('u:pw').replace(/=+$/, '')}`],
    ['excess padding', `Basic ${b64('u:p')}==`],
    ['base64url characters', 'Basic dTp-fn4='], // standard base64 of "u:~~~" is dTp+fn4=
    ['non-zero padding bits', 'Basic dTp='], // decodes leniently to "u:" (canonical: dTo=)
    ['a length that is not a multiple of four', 'Basic dTpwx=='],
    ['padding in the middle', 'Basic dQ==dTpw'],
    ['whitespace inside the token', 'Basic dTpw dTpw'],
    ['a trailing auth-param', `Basic ${b64('u:p')}, realm="x"`],
    ['invalid UTF-8', `Basic ${b64(Buffer.from([0x75, 0x3a, 0xc3, 0x28]))}`],
    ['a control character in the user-id', `Basic ${b64('u\u0000x:p')}`],
    ['a control character in the password', `Basic ${b64('u:p\r\nX-Injected: 1')}`],
    ['a DEL in the password', `Basic ${b64('u:p\u007f')}`],
    ['an over-long header', `Basic ${b64(`u:${'p'.repeat(MAX_BASIC_AUTHORIZATION_LENGTH)}`)}`],
  ])('rejects %s', (_label, header) => {
    expect(parseBasicAuthorization(header)).toBeNull();
  });

  it('round-trips any user-id without colons or controls and any password without controls', () => {
    const text = (exclude: RegExp) => fc.string({ unit: 'grapheme', maxLength: 40 }).filter((s) => !exclude.test(s));
    // eslint-disable-next-line no-control-regex
    const controls = /[\u0000-\u001f\u007f-\u009f]/;
    // eslint-disable-next-line no-control-regex
    const colonOrControls = /[:\u0000-\u001f\u007f-\u009f]/;
    fc.assert(
      fc.property(
        text(colonOrControls).filter((s) => s.length > 0),
        text(controls),
        (userId, password) => {
          expect(parseBasicAuthorization(`Basic ${b64(`${userId}:${password}`)}`)).toEqual({ userId, password });
        },
      ),
    );
  });

  it('never throws and only accepts canonical base64 on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (token) => {
        const parsed = parseBasicAuthorization(`Basic ${token}`);
        if (parsed !== null) expect(b64(Buffer.from(token, 'base64'))).toBe(token.trim());
      }),
    );
  });
});
