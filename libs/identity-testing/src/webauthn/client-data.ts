import { Buffer } from 'node:buffer';
import type { ClientDataOverrides, JsonValue } from './software-authenticator.options.js';

/**
 * clientDataJSON as a browser serializes it — `{"type","challenge","origin","crossOrigin":false}`
 * in that order — then each override applied exactly.
 *
 * @example
 * encodeClientDataJSON('webauthn.create', options.challenge, 'http://localhost:3000', { crossOrigin: true });
 */
export function encodeClientDataJSON(
  type: string,
  challenge: string,
  origin: string,
  overrides: ClientDataOverrides = {},
): Uint8Array {
  if (overrides.clientDataJSON !== undefined) {
    return typeof overrides.clientDataJSON === 'string'
      ? Buffer.from(overrides.clientDataJSON, 'utf8')
      : overrides.clientDataJSON;
  }
  const data: Record<string, JsonValue> = {
    type: overrides.type ?? type,
    challenge: overrides.challenge ?? challenge,
    origin: overrides.origin ?? origin,
  };
  const crossOrigin = overrides.crossOrigin === undefined ? false : overrides.crossOrigin;
  if (crossOrigin !== null) data['crossOrigin'] = crossOrigin;
  if (overrides.topOrigin !== undefined) data['topOrigin'] = overrides.topOrigin;
  Object.assign(data, overrides.clientDataExtra);
  return Buffer.from(JSON.stringify(data), 'utf8');
}
