import { createHash } from 'node:crypto';
import type { Exchange } from '@tessera/web';
import { parseStrictJson } from '../../http/strict-json.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import type { ScimReceiptInput } from '../../store/identity-scim.port.js';
import { invalidSyntax, ScimError } from '../scim.errors.js';

/** `application/scim+json` or `application/json`, with or without `charset=utf-8` (RFC 7644 §3.1, issue 15). */
const SCIM_BODY_TYPE = /^application\/(?:scim\+)?json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
/** Parsed-document bounds of identity-http §7. */
const MAX_DEPTH = 20;
const MAX_NODES = 10_000;
const MAX_STRING = 16_384;
/** `Idempotency-Key`: 1..200 visible ASCII characters (issue 15). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

const TOO_LARGE = new ScimError(413, 'tooMany', 'The request body is too large');
const UNSUPPORTED = new ScimError(415, undefined, 'The content type must be application/scim+json or application/json');

/**
 * Reads a SCIM request body (POST/PUT/PATCH): exactly one supported `Content-Type` (else 415), at
 * most one valid `Content-Length` within `limits.scimBodyBytes` and at most that many bytes (else
 * 413 `tooMany`), strict UTF-8 and strict JSON without duplicate keys, an object, depth ≤ 20,
 * ≤ 10 000 nodes, strings ≤ 16 384 characters (else 400 `invalidSyntax`).
 *
 * @example
 * const body = await readScimBody(kernel, exchange);
 */
export async function readScimBody(kernel: IdentityKernel, exchange: Exchange): Promise<Record<string, unknown>> {
  const types = exchange.headerValues('content-type');
  if (types.length !== 1 || !SCIM_BODY_TYPE.test(types[0]!.trim())) throw UNSUPPORTED;
  const limit = kernel.config.limits.scimBodyBytes;
  const lengths = exchange.headerValues('content-length');
  if (lengths.length > 1 || (lengths.length === 1 && !/^[0-9]{1,10}$/.test(lengths[0]!))) throw invalidSyntax();
  if (lengths.length === 1 && Number(lengths[0]) > limit) throw TOO_LARGE;
  let bytes: Buffer;
  try {
    bytes = await exchange.readBody({ limitBytes: limit });
  } catch {
    throw TOO_LARGE;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalidSyntax();
  }
  const value = text.trim() === '' ? undefined : parseStrictJson(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !withinBounds(value)) {
    throw invalidSyntax();
  }
  return value as Record<string, unknown>;
}

function withinBounds(root: unknown): boolean {
  let nodes = 0;
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (++nodes > MAX_NODES || depth > MAX_DEPTH) return false;
    if (typeof value === 'string' && value.length > MAX_STRING) return false;
    if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key.length > MAX_STRING) return false;
        stack.push({ value: child, depth: depth + 1 });
      }
    }
  }
  return true;
}

/** The request's preconditions (RFC 7232 with weak ETags `W/"<version>"`). */
export interface ScimPreconditions {
  /** Versions `If-Match` accepts (`'*'` = any existing), or `null` when absent. */
  readonly ifMatch: readonly (number | '*')[] | null;
  readonly ifNoneMatch: readonly (number | '*')[] | null;
  /** The raw `If-Match` text (part of the idempotency fingerprint). */
  readonly ifMatchText: string | null;
}

const ETAG = /^(?:W\/)?"([0-9]{1,10})"$/;

function parseTags(values: readonly string[]): (number | '*')[] | null {
  if (values.length === 0) return null;
  const tags: (number | '*')[] = [];
  for (const part of values.join(',').split(',')) {
    const tag = part.trim();
    if (tag === '*') tags.push('*');
    else {
      const match = ETAG.exec(tag);
      if (match === null) throw new ScimError(400, 'invalidValue', 'The precondition header is not valid');
      tags.push(Number(match[1]));
    }
  }
  return tags;
}

/**
 * Reads `If-Match` / `If-None-Match` (identity-http §7 as changed by issue 15): both optional; a
 * precondition the method cannot use (`If-Match` on GET/POST, `If-None-Match` on a mutation) → 400.
 *
 * @example
 * const preconditions = readPreconditions(exchange);
 */
export function readPreconditions(exchange: Exchange): ScimPreconditions {
  const ifMatchValues = exchange.headerValues('if-match');
  const ifNoneMatchValues = exchange.headerValues('if-none-match');
  const read = exchange.method === 'GET' || exchange.method === 'HEAD';
  if ((read || exchange.method === 'POST') && ifMatchValues.length > 0) throw invalidPrecondition();
  if (!read && ifNoneMatchValues.length > 0) throw invalidPrecondition();
  return {
    ifMatch: parseTags(ifMatchValues),
    ifNoneMatch: parseTags(ifNoneMatchValues),
    ifMatchText: ifMatchValues.length === 0 ? null : ifMatchValues.join(', ').slice(0, 255),
  };
}

function invalidPrecondition(): ScimError {
  return new ScimError(400, 'invalidValue', 'The precondition header is not allowed on this method');
}

/**
 * `true` when a precondition list admits `version` (`*` admits any existing resource).
 *
 * @example
 * if (!tagsMatch(preconditions.ifMatch, user.version)) throw PRECONDITION_FAILED;
 */
export function tagsMatch(tags: readonly (number | '*')[], version: number): boolean {
  return tags.some((tag) => tag === '*' || tag === version);
}

/** 412: the resource's version is not the one `If-Match` names. */
export const PRECONDITION_FAILED = new ScimError(412, undefined, 'The resource version does not match If-Match');

/** The ETag of a resource version. */
export function etagOf(version: number): string {
  return `W/"${version}"`;
}

/**
 * The idempotency receipt of a mutation carrying `Idempotency-Key` (any 1..200 visible ASCII
 * value; more than one header or another value → 400), else `null`. The stored operation id is a
 * UUID derived from the tenant's provider key and the key (keys of two tenants never collide, the
 * key is not stored); the fingerprint covers method, path, `If-Match` and the canonical body.
 *
 * @example
 * const receipt = idempotencyReceipt(exchange, tenant.provider, preconditions, body);
 */
export function idempotencyReceipt(
  exchange: Exchange,
  provider: string,
  preconditions: ScimPreconditions,
  body: unknown,
): ScimReceiptInput | null {
  const keys = exchange.headerValues('idempotency-key');
  if (keys.length === 0) return null;
  if (keys.length > 1 || !IDEMPOTENCY_KEY.test(keys[0]!)) {
    throw new ScimError(400, 'invalidValue', 'The Idempotency-Key header is not valid');
  }
  const operation = createHash('sha256').update('tessera-scim-idempotency-v1\0').update(provider).update('\0');
  const bytes = operation.update(keys[0]!).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  const fingerprint = JSON.stringify([exchange.method, exchange.path, preconditions.ifMatchText, canonical(body)]);
  return {
    operationId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    method: exchange.method as ScimReceiptInput['method'],
    path: exchange.path.slice(0, 4096),
    precondition: preconditions.ifMatchText,
    requestDigest: createHash('sha256').update(fingerprint).digest('base64url'),
  };
}

/** A JSON value with object keys sorted (the fingerprint does not depend on key order). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
