import { CliError, ExitCode } from './cli.errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The key of a server in the credential stores: `new URL(input)` with its origin and path, without
 * a trailing slash, query or fragment (`HTTPS://Id.Example.com:443/` → `https://id.example.com`).
 * Plain `http` is accepted only for loopback hosts: tokens must not cross a network unencrypted.
 *
 * @example
 * normalizeServerUrl('http://localhost:3000/'); // 'http://localhost:3000'
 */
export function normalizeServerUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new CliError(`Not a server URL: ${JSON.stringify(input)}.`, ExitCode.usage);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new CliError(`The server URL must use https: ${url.protocol}// is not supported.`, ExitCode.usage);
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname))
    throw new CliError('The server URL must use https (plain http only for localhost).', ExitCode.usage);
  if (url.username !== '' || url.password !== '')
    throw new CliError('The server URL must not contain a user name or password.', ExitCode.usage);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
