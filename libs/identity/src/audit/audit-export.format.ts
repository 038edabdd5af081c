import type { AuditEventRecord } from '../store/identity-records.js';
import { csvRow } from './audit-csv.js';
import { auditEventView } from './audit-event.view.js';
import type { AuditExportLineFormat } from '../store/identity-invitation-audit.port.js';
import type { AuditExportFormat } from './audit-query.js';

/** What the trailer of a finished export says (identity-http §4.4). */
export interface AuditExportTrailer {
  /**
   * The cursor after the last event this response wrote (the request's cursor when it wrote none,
   * `null` when there was neither): passed back as `cursor`, it continues with the older events.
   */
  readonly cursor: string | null;
  /** `true` when the oldest event was reached; `false` when the response stopped at its event cap. */
  readonly complete: boolean;
}

/** How one export format frames its body. */
export interface AuditExportEncoder {
  /** The store's line format of the events (`exportAuditEventLines`). */
  readonly format: AuditExportFormat;
  readonly contentType: string;
  readonly extension: string;
  /** What precedes the first event (the CSV header row). */
  readonly head: string;
  /** The last line of a response that ran to its end; a failed response has none. */
  trailer(trailer: AuditExportTrailer): string;
}

/** The CSV columns: the fields of `AuditEventView`, nested ones as JSON text. */
const CSV_COLUMNS = [
  'id',
  'actor',
  'organizationId',
  'action',
  'target',
  'outcome',
  'reasonCode',
  'request',
  'occurredAt',
] as const;

const NDJSON: AuditExportEncoder = {
  format: 'ndjson',
  contentType: 'application/x-ndjson; charset=utf-8',
  extension: 'ndjson',
  head: '',
  trailer: (trailer) => `${JSON.stringify({ trailer })}\n`,
};

const CSV: AuditExportEncoder = {
  format: 'csv',
  contentType: 'text/csv; charset=utf-8',
  extension: 'csv',
  head: csvRow(CSV_COLUMNS),
  // Not a record: a line starting with `#` (no event row can, its first cell is a UUID).
  trailer: ({ cursor, complete }) => `# cursor=${cursor ?? ''} complete=${complete}\r\n`,
};

/**
 * The encoder of an export format (identity-http §4.4): NDJSON is one `AuditEventView` JSON object
 * per line, then `{"trailer":{"cursor":…,"complete":…}}`; CSV is RFC 4180 with a header row of the
 * view's fields (nested objects as JSON text, formula-like cells prefixed with `'`), then
 * `# cursor=<cursor> complete=<true|false>`.
 *
 * @example
 * const encoder = auditExportEncoder('csv');
 */
export function auditExportEncoder(format: AuditExportFormat): AuditExportEncoder {
  return format === 'csv' ? CSV : NDJSON;
}

/**
 * THE definition of an export's event lines (identity-http §4.4), newest first: NDJSON
 * `JSON.stringify(auditEventView(event))` + `\n` per event; CSV one RFC 4180 record (CRLF) of the
 * view's {@link CSV_COLUMNS} per event (`csvCell`: nested objects as JSON text, absent fields
 * empty, formula-like text prefixed with `'`). The store's `exportAuditEventLines` produces
 * exactly this text (the PostgreSQL adapter builds it in SQL, a mirror the conformance suite
 * compares with this function line by line).
 *
 * @example
 * auditExportLines(page.events, 'ndjson'); // '{"id":"…","actor":{"type":"system"},…}\n…'
 */
export function auditExportLines(events: readonly AuditEventRecord[], format: AuditExportLineFormat): string {
  let text = '';
  if (format === 'ndjson') {
    for (const event of events) text += `${JSON.stringify(auditEventView(event))}\n`;
    return text;
  }
  const cells: unknown[] = [];
  for (const event of events) {
    const view: Record<string, unknown> = auditEventView(event);
    for (let i = 0; i < CSV_COLUMNS.length; i++) cells[i] = view[CSV_COLUMNS[i]!];
    text += csvRow(cells);
  }
  return text;
}
