import { describe, expect, it } from '@jest/globals';
import { StoreError } from '@tessera/identity';
import { textArrayLiteral } from './identity-row.columns.js';
import { quotedTextArray } from './identity-federation.rows.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----';

describe('federation row mappers', () => {
  it('reads a text[] of PEM certificates from the driver array or from its literal form, quotes and escapes included', () => {
    const values = [PEM, 'plain', 'with "quotes", a comma and a \\ backslash', ''];
    expect(quotedTextArray({ certificates: values }, 'certificates')).toEqual(values);
    expect(quotedTextArray({ certificates: textArrayLiteral(values) }, 'certificates')).toEqual(values);
    expect(quotedTextArray({ certificates: '{}' }, 'certificates')).toEqual([]);
    expect(quotedTextArray({ certificates: '{a,b}' }, 'certificates')).toEqual(['a', 'b']);
  });

  it('refuses a value that is not an array literal, and a NULL element', () => {
    expect(() => quotedTextArray({ certificates: 'not an array' }, 'certificates')).toThrow(StoreError);
    expect(() => quotedTextArray({ certificates: '{a,NULL}' }, 'certificates')).toThrow(StoreError);
  });
});
