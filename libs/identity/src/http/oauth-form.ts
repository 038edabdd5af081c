import type { Exchange } from '@tessera/web';
import { IDENTITY_FIXED_LIMITS } from '../config/identity-bounds.config.js';
import { OAuthError } from '../errors/oauth.errors.js';
import { codePointLength } from './request-fields.js';

/**
 * Longest decoded parameter name of an OAuth form, in characters (`identity-http.md` §1).
 *
 * @example
 * if (codePointLength(name) > OAUTH_FORM_NAME_MAX_CHARS) return undefined;
 */
export const OAUTH_FORM_NAME_MAX_CHARS = 100;

/**
 * The decoded parameters of an OAuth form that the endpoint knows, by name. A parameter that was
 * absent or sent with an empty value is missing (RFC 6749 §3.1: "parameters sent without a value
 * MUST be treated as if they were omitted").
 *
 * @example
 * const form: OAuthFormFields<'client_id' | 'scope'> = { client_id: 'tessera-cli' };
 */
export type OAuthFormFields<N extends string> = { readonly [K in N]?: string };

const AMPERSAND = 0x26;
const EQUALS = 0x3d;
const PERCENT = 0x25;
const PLUS = 0x2b;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** Variations of {@link parseOAuthForm} for the SAML HTTP-POST binding. */
export interface FormParseOptions {
  /** Longest value in characters. @default 8192 */
  readonly maxValueChars?: number;
  /** Refuse a parameter the endpoint does not know (instead of ignoring it). @default false */
  readonly rejectUnknown?: boolean;
}

/**
 * Decodes an `application/x-www-form-urlencoded` body by the Form bodies rule of
 * `identity-http.md` §1: every raw byte in 0x21..0x7E (a space must be sent as `+`); at most 32
 * `&`-separated fields, each exactly `name=value` with one raw `=` (an `=` inside a value is sent as
 * `%3D`); `+` is a space and `%XX` (hex, either case) a byte; the decoded bytes strict UTF-8; names
 * 1..100 characters; values at most 8192 characters (code points). `parameters` are the endpoint's
 * parameters, all single-valued: sending one twice is refused, even with an empty value.
 * Parameters the endpoint does not know are counted and checked but otherwise ignored (RFC 6749
 * §3.2). An empty body has no fields. `undefined` for any violation, which the endpoint answers
 * with `invalid_request` (nothing of the body is echoed).
 *
 * @example
 * parseOAuthForm('grant_type=refresh_token&refresh_token=abc&client_id=tessera-cli', ['grant_type', 'refresh_token', 'client_id']);
 * // { grant_type: 'refresh_token', refresh_token: 'abc', client_id: 'tessera-cli' }
 */
export function parseOAuthForm<const N extends string>(
  body: string | Uint8Array,
  parameters: readonly N[],
  options: FormParseOptions = {},
): OAuthFormFields<N> | undefined {
  const maxValueChars = options.maxValueChars ?? IDENTITY_FIXED_LIMITS.formValueChars;
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  for (const byte of bytes) if (byte < 0x21 || byte > 0x7e) return undefined;
  const known = new Set<string>(parameters);
  const seen = new Set<string>();
  // No prototype: a parameter named `__proto__` is a field like any other.
  const fields = Object.create(null) as Record<string, string>;
  if (bytes.byteLength === 0) return fields as OAuthFormFields<N>;
  let count = 0;
  let start = 0;
  while (start <= bytes.byteLength) {
    let end = bytes.indexOf(AMPERSAND, start);
    if (end === -1) end = bytes.byteLength;
    if (++count > IDENTITY_FIXED_LIMITS.formFields) return undefined;
    const equals = bytes.indexOf(EQUALS, start);
    if (equals <= start || equals >= end) return undefined;
    const second = bytes.indexOf(EQUALS, equals + 1);
    if (second !== -1 && second < end) return undefined;
    const name = percentDecode(bytes.subarray(start, equals));
    const value = percentDecode(bytes.subarray(equals + 1, end));
    if (name === undefined || value === undefined) return undefined;
    if (codePointLength(name) > OAUTH_FORM_NAME_MAX_CHARS) return undefined;
    if (codePointLength(value) > maxValueChars) return undefined;
    if (!known.has(name) && options.rejectUnknown === true) return undefined;
    if (known.has(name)) {
      if (seen.has(name)) return undefined;
      seen.add(name);
      if (value !== '') fields[name] = value;
    }
    start = end + 1;
  }
  return fields as OAuthFormFields<N>;
}

/**
 * Stage 9 for OAuth form bodies: exactly one `Content-Type` of `application/x-www-form-urlencoded`
 * (optionally `; charset=utf-8`), at most one `Content-Length`, within `limitBytes`
 * (`limits.formBodyBytes`), then {@link parseOAuthForm}. Every violation, an oversized body
 * included, throws `OAuthError('invalid_request')`.
 *
 * @example
 * const form = await readOAuthForm(exchange, kernel.config.limits.formBodyBytes, ['client_id', 'client_name', 'scope']);
 * if (form.client_id === undefined) throw new OAuthError('invalid_request');
 */
export async function readOAuthForm<const N extends string>(
  exchange: Exchange,
  limitBytes: number,
  parameters: readonly N[],
): Promise<OAuthFormFields<N>> {
  const types = exchange.headerValues('content-type');
  const lengths = exchange.headerValues('content-length');
  if (types.length !== 1 || !FORM_TYPE.test(types[0]!.trim())) throw new OAuthError('invalid_request');
  if (
    lengths.length > 1 ||
    (lengths.length === 1 && !(/^[0-9]{1,10}$/.test(lengths[0]!) && Number(lengths[0]) <= limitBytes))
  ) {
    throw new OAuthError('invalid_request');
  }
  let bytes: Buffer;
  try {
    bytes = await exchange.readBody({ limitBytes });
  } catch (cause) {
    throw new OAuthError('invalid_request', { cause });
  }
  const fields = parseOAuthForm(bytes, parameters);
  if (fields === undefined) throw new OAuthError('invalid_request');
  return fields;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `+` → space, `%XX` → byte, then strict UTF-8; `undefined` for a bad escape or bad UTF-8. */
function percentDecode(raw: Uint8Array): string | undefined {
  if (!raw.includes(PERCENT) && !raw.includes(PLUS)) return Buffer.from(raw).toString('latin1');
  const out = Buffer.allocUnsafe(raw.byteLength);
  let length = 0;
  for (let i = 0; i < raw.byteLength; i++) {
    const byte = raw[i]!;
    if (byte === PLUS) {
      out[length++] = 0x20;
    } else if (byte === PERCENT) {
      const high = hexValue(raw[i + 1]);
      const low = hexValue(raw[i + 2]);
      if (high === undefined || low === undefined) return undefined;
      out[length++] = (high << 4) | low;
      i += 2;
    } else {
      out[length++] = byte;
    }
  }
  try {
    return UTF8.decode(out.subarray(0, length));
  } catch {
    return undefined;
  }
}

function hexValue(byte: number | undefined): number | undefined {
  if (byte === undefined) return undefined;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return undefined;
}
