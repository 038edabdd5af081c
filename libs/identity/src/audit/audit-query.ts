import { IDENTITY_FIXED_LIMITS } from '../config/identity-bounds.config.js';
import { decodeAuditCursor, type AuditCursor } from './audit-cursor.js';

const LIMIT = /^[1-9][0-9]{0,2}$/;

/** The decoded query of the audit-events route (identity-http §4.4). */
export interface AuditQuery {
  readonly limit: number;
  readonly cursor?: AuditCursor;
}

/** The formats of the audit export (identity-http §4.4). */
export type AuditExportFormat = 'ndjson' | 'csv';

/** The decoded query of the audit export route. */
export interface AuditExportQuery {
  readonly format: AuditExportFormat;
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
  const params = strictParams(rawQuery, ['limit', 'cursor']);
  if (params === undefined) return undefined;
  const { limit, cursor } = params;
  if (limit !== undefined && (!LIMIT.test(limit) || Number(limit) > IDENTITY_FIXED_LIMITS.auditPageMax)) {
    return undefined;
  }
  const decoded = cursor === undefined ? undefined : decodeAuditCursor(cursor);
  if (cursor !== undefined && decoded === undefined) return undefined;
  return {
    limit: limit === undefined ? defaultLimit : Number(limit),
    ...(decoded === undefined ? {} : { cursor: decoded }),
  };
}

/**
 * Parses the raw query string of the audit export with the same strict rules as
 * {@link parseAuditQuery}: exactly one `format` (`ndjson` or `csv`) and at most one `cursor` (the
 * same cursor as route 29's `nextCursor` or an export trailer's); anything else → `undefined`.
 *
 * @example
 * parseAuditExportQuery('format=csv'); // { format: 'csv' }
 * parseAuditExportQuery('format=csv&limit=5'); // undefined
 */
export function parseAuditExportQuery(rawQuery: string): AuditExportQuery | undefined {
  const params = strictParams(rawQuery, ['format', 'cursor']);
  if (params === undefined) return undefined;
  const { format, cursor } = params;
  if (format !== 'ndjson' && format !== 'csv') return undefined;
  const decoded = cursor === undefined ? undefined : decodeAuditCursor(cursor);
  if (cursor !== undefined && decoded === undefined) return undefined;
  return { format, ...(decoded === undefined ? {} : { cursor: decoded }) };
}

/**
 * The raw values of a query made only of `names`, each at most once, each `name=value` with a
 * non-empty value (verbatim); `undefined` for any other, repeated or empty parameter.
 */
function strictParams<N extends string>(rawQuery: string, names: readonly N[]): Partial<Record<N, string>> | undefined {
  const values: Partial<Record<N, string>> = {};
  if (rawQuery === '') return values;
  for (const part of rawQuery.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1) return undefined;
    const name = part.slice(0, eq) as N;
    if (!names.includes(name) || values[name] !== undefined) return undefined;
    values[name] = part.slice(eq + 1);
  }
  return values;
}
