import { decodeBase64Url } from '../tokens/base64url.codec.js';
import { isCanonicalUuidV7 } from '../tokens/uuid-v7.generator.js';

/** Longest accepted cursor text (identity-model §8.3). */
export const AUDIT_CURSOR_MAX_CHARS = 1024;
/** Largest accepted decoded cursor (identity-model §8.3). */
export const AUDIT_CURSOR_MAX_BYTES = 512;

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What an audit cursor names: the organization it is bound to and the last event of a page. */
export interface AuditCursor {
  readonly organizationId: string;
  readonly occurredAt: Date;
  readonly eventId: string;
}

/**
 * The opaque keyset cursor of identity-model §8.3: unpadded base64url of the UTF-8 text
 * `v1\n<organizationId>\n<occurredAt ISO>\n<eventId>`.
 *
 * @example
 * const nextCursor = encodeAuditCursor({ organizationId, occurredAt: last.occurredAt, eventId: last.id });
 */
export function encodeAuditCursor(cursor: AuditCursor): string {
  const text = `v1\n${cursor.organizationId}\n${cursor.occurredAt.toISOString()}\n${cursor.eventId}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor passed back by a client; `undefined` unless it is exactly what
 * {@link encodeAuditCursor} produces (≤ 1024 characters, ≤ 512 bytes decoded, strict base64url and
 * UTF-8, version `v1`, canonical UUIDv7 ids, a millisecond ISO instant, and an identical re-encoding).
 * The organization binding is checked by the caller, after its authorization check.
 *
 * @example
 * const cursor = decodeAuditCursor(raw);
 * if (cursor === undefined || cursor.organizationId !== organizationId) throw new IdentityError('request_invalid');
 */
export function decodeAuditCursor(value: string): AuditCursor | undefined {
  if (value.length === 0 || value.length > AUDIT_CURSOR_MAX_CHARS) return undefined;
  const bytes = decodeBase64Url(value, { minBytes: 1, maxBytes: AUDIT_CURSOR_MAX_BYTES });
  if (bytes === undefined) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
  const parts = text.split('\n');
  if (parts.length !== 4 || parts[0] !== 'v1') return undefined;
  const [, organizationId, instant, eventId] = parts as [string, string, string, string];
  if (!isCanonicalUuidV7(organizationId) || !isCanonicalUuidV7(eventId) || !ISO_INSTANT.test(instant)) return undefined;
  const occurredAt = new Date(instant);
  if (Number.isNaN(occurredAt.getTime()) || occurredAt.toISOString() !== instant) return undefined;
  const cursor = { organizationId, occurredAt, eventId };
  return encodeAuditCursor(cursor) === value ? cursor : undefined;
}
