import { IDENTITY_FIXED_LIMITS } from '../config/identity-bounds.config.js';
import { decodeAuditCursor, type AuditCursor } from './audit-cursor.js';

const LIMIT = /^[1-9][0-9]{0,2}$/;

/** The decoded query of the audit-events route (identity-http §4.4). */
export interface AuditQuery {
  readonly limit: number;
  readonly cursor?: AuditCursor;
}

/**
 * Parses the raw query string of route 29 strictly (identity-http §1, §4.4): only `limit` and
 * `cursor`, each at most once, each `name=value` with a non-empty value taken verbatim (no
 * percent-decoding: any encoding makes the value non-canonical); `limit` matches
 * `^[1-9][0-9]{0,2}$` within 1..100 (`defaultLimit` when absent); `cursor` decodes as
 * {@link decodeAuditCursor}. Anything else → `undefined` (400 `request_invalid`).
 *
 * @example
 * parseAuditQuery('limit=20', 50); // { limit: 20 }
 * parseAuditQuery('limit=020', 50); // undefined
 */
export function parseAuditQuery(rawQuery: string, defaultLimit: number): AuditQuery | undefined {
  if (rawQuery === '') return { limit: defaultLimit };
  let limit: number | undefined;
  let cursor: AuditCursor | undefined;
  for (const part of rawQuery.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1) return undefined;
    const name = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (name === 'limit' && limit === undefined) {
      if (!LIMIT.test(value) || Number(value) > IDENTITY_FIXED_LIMITS.auditPageMax) return undefined;
      limit = Number(value);
    } else if (name === 'cursor' && cursor === undefined) {
      cursor = decodeAuditCursor(value);
      if (cursor === undefined) return undefined;
    } else {
      return undefined;
    }
  }
  return { limit: limit ?? defaultLimit, ...(cursor === undefined ? {} : { cursor }) };
}
