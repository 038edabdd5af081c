import { describe, expect, it } from '@jest/globals';
import { ExitCode } from './cli.errors.js';
import { normalizeServerUrl } from './server-url.js';

describe('normalizeServerUrl', () => {
  it('keys a server by origin and path, without trailing slash, default port, query or fragment', () => {
    expect(normalizeServerUrl('HTTPS://Id.Example.com:443/')).toBe('https://id.example.com');
    expect(normalizeServerUrl(' https://example.com/tessera/?x=1#top ')).toBe('https://example.com/tessera');
    expect(normalizeServerUrl('http://localhost:3000')).toBe('http://localhost:3000');
    expect(normalizeServerUrl('http://127.0.0.1:3000/')).toBe('http://127.0.0.1:3000');
  });

  it.each([['not a url'], ['ftp://id.example.com'], ['http://id.example.com'], ['https://ada:secret@id.example.com']])(
    'refuses %s as a usage error (plain http only for loopback)',
    (input) => {
      expect(() => normalizeServerUrl(input)).toThrow(expect.objectContaining({ exitCode: ExitCode.usage }));
    },
  );
});
