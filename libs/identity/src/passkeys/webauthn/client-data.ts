import { parseStrictJson } from '../../http/strict-json.js';

/** The members of `clientDataJSON` the contract checks. */
export interface ClientData {
  readonly type: string;
  readonly challenge: string;
  readonly origin: string;
}

/**
 * Strict `clientDataJSON`: UTF-8, strict JSON (no duplicate keys), an object whose `type`,
 * `challenge` and `origin` are strings, `crossOrigin` absent or `false`, no `topOrigin`, and no
 * `tokenBinding` in state `present`. Other members are allowed (browsers add some on purpose).
 * `undefined` for anything else.
 *
 * @example
 * const clientData = parseClientData(credential.clientDataJSON);
 */
export function parseClientData(bytes: Uint8Array): ClientData | undefined {
  let value: unknown;
  try {
    value = parseStrictJson(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const data = value as Record<string, unknown>;
  if (typeof data.type !== 'string' || typeof data.challenge !== 'string' || typeof data.origin !== 'string')
    return undefined;
  if (data.crossOrigin !== undefined && data.crossOrigin !== false) return undefined;
  if (data.topOrigin !== undefined) return undefined;
  const binding = data.tokenBinding;
  if (binding !== undefined) {
    if (typeof binding !== 'object' || binding === null) return undefined;
    if ((binding as Record<string, unknown>).status === 'present') return undefined;
  }
  return { type: data.type, challenge: data.challenge, origin: data.origin };
}

/**
 * `true` for a strict DER ECDSA signature: `SEQUENCE { INTEGER r, INTEGER s }` with short-form
 * lengths, minimal positive integers of at most 33 bytes and nothing after the sequence.
 *
 * @example
 * if (!isStrictDerSignature(signature)) return fail('signature_invalid');
 */
export function isStrictDerSignature(signature: Uint8Array): boolean {
  if (signature.length < 8 || signature[0] !== 0x30 || signature[1] !== signature.length - 2) return false;
  let offset = 2;
  for (let i = 0; i < 2; i++) {
    if (signature[offset] !== 0x02) return false;
    const length = signature[offset + 1]!;
    if (length < 1 || length > 33 || offset + 2 + length > signature.length) return false;
    const first = signature[offset + 2]!;
    if ((first & 0x80) !== 0) return false;
    if (first === 0 && (length === 1 || (signature[offset + 3]! & 0x80) === 0)) return false;
    offset += 2 + length;
  }
  return offset === signature.length;
}
