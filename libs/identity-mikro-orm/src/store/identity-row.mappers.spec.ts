import { describe, expect, it } from '@jest/globals';
import { StoreError } from '@tessera/identity';
import { textArrayLiteral } from './identity-row.columns.js';
import { credentialFromRow, userFromRow } from './identity-row.mappers.js';

const USER = {
  id: '01890a5d-ac96-774b-bcce-b302099a8057',
  primary_email: null,
  display_name: 'Ada',
  state: 'active',
  session_epoch: 3,
  version: 1,
};

describe('row mappers', () => {
  it.each([
    ['2031-05-01 10:45:00+00', '2031-05-01T10:45:00.000Z'],
    ['2031-05-01 10:45:00.123456+00', '2031-05-01T10:45:00.123Z'],
    ['2031-05-01 12:45:00.5+02', '2031-05-01T10:45:00.500Z'],
    ['2031-05-01 05:15:00-05:30', '2031-05-01T10:45:00.000Z'],
    ['2031-05-01T10:45:00.000Z', '2031-05-01T10:45:00.000Z'],
  ])('reads the PostgreSQL timestamptz text %s as the instant %s', (text, iso) => {
    const user = userFromRow({ ...USER, created_at: text, updated_at: new Date(iso) });
    expect(user.createdAt.toISOString()).toBe(iso);
    expect(user.updatedAt.toISOString()).toBe(iso);
  });

  it('refuses a timestamp it cannot read exactly instead of guessing', () => {
    expect(() => userFromRow({ ...USER, created_at: 'May 1, 2031', updated_at: 'infinity' })).toThrow(StoreError);
  });

  it('maps snake_case columns to the record and keeps a missing email as null', () => {
    const at = new Date('2031-05-01T10:45:00.000Z');
    expect(userFromRow({ ...USER, created_at: at, updated_at: at })).toEqual({
      id: USER.id,
      primaryEmail: null,
      displayName: 'Ada',
      state: 'active',
      sessionEpoch: 3,
      version: 1,
      createdAt: at,
      updatedAt: at,
    });
  });

  describe('credentials', () => {
    const at = new Date('2031-05-01T10:45:00.000Z');
    const CREDENTIAL = {
      id: USER.id,
      user_id: USER.id,
      web_authn_id: 'AAEC',
      name: 'Laptop',
      sign_count: '4294967295',
      backup_eligible: true,
      backed_up: false,
      state: 'active',
      version: 0,
      created_at: '2031-05-01 10:45:00+00',
      updated_at: at,
      last_used_at: null,
      revoked_at: null,
    };

    it('reads the bytea public key as a plain Uint8Array, from a Buffer or its hex text form, and a bigint counter', () => {
      for (const publicKey of [Buffer.from([0xa5, 0x01, 0x02]), '\\xa50102']) {
        const credential = credentialFromRow({ ...CREDENTIAL, public_key: publicKey, transports: ['internal'] });
        expect(credential.publicKey).toEqual(new Uint8Array([0xa5, 0x01, 0x02]));
        expect(Buffer.isBuffer(credential.publicKey)).toBe(false);
        expect(credential.signCount).toBe(4294967295);
        expect(credential.createdAt).toEqual(at);
      }
    });

    it('reads text[] transports from an array or the array literal, and writes the literal back', () => {
      const literal = textArrayLiteral(['usb', 'smart-card']);
      expect(literal).toBe('{"usb","smart-card"}');
      for (const transports of [['usb', 'smart-card'], '{usb,smart-card}']) {
        const credential = credentialFromRow({ ...CREDENTIAL, public_key: Buffer.alloc(1), transports });
        expect(credential.transports).toEqual(['usb', 'smart-card']);
      }
      expect(credentialFromRow({ ...CREDENTIAL, public_key: Buffer.alloc(1), transports: '{}' }).transports).toEqual(
        [],
      );
      expect(textArrayLiteral([])).toBe('{}');
    });
  });
});
