import type { AuditEventPosition, AuditExportBatch, AuditExportLineFormat } from '@tessera/identity';
import { isUuid, table, type StoreGateway } from './identity-store.gateway.js';
import { instant, text } from './identity-row.mappers.js';
import { AUDIT_EVENT_FIELDS } from './identity-row.fields.js';

/*
 * The audit export's lines built by PostgreSQL (identity-http §4.4). This is a MIRROR of
 * `auditExportLines` (`@tessera/identity`: `auditEventView`, `JSON.stringify`, `csvRow`), which
 * stays the definition; the conformance case "export lines equal the reference encoding" compares
 * both line by line as strings on varied events (every actor type, optional fields present and
 * absent, whole and fractional milliseconds, unicode, quotes, newlines, control characters,
 * formula-like text), on PGlite and on the PostgreSQL server. Change both together.
 *
 * - JSON strings: `to_json(text)::text` escapes `"`, `\`, \b \f \n \r \t and the other control
 *   characters as `\u00xx` (lowercase hex), exactly as `JSON.stringify` does (PostgreSQL text holds
 *   no NUL and no lone surrogate, the only other differences). Columns whose CHECK constraints (or
 *   type) admit no character that JSON or CSV would escape are written as they are, `to_json` being
 *   the statement's main cost: `uuid`s, `action` (`^[a-z][a-z0-9_]*([.][a-z][a-z0-9_]*)+$`),
 *   `outcome` and `target_type` (fixed lists), `request_id` (`^[A-Za-z0-9._:-]{1,255}$`); the free
 *   texts `target_id`, `reason_code`, `request_method` and `request_path` always go through it.
 * - Timestamps: `formatTimestamp` (UTC, `Z`, the millisecond fraction only when non-zero: one
 *   `to_char` with it, then `.000Z` → `Z`; `pg` truncates sub-millisecond digits, as `to_char(…, 'MS')`
 *   does).
 * - Absent fields (`target`, `reasonCode`, `request`) are omitted from NDJSON and empty in CSV;
 *   keys in the view's order; nested objects are the same JSON text in both formats.
 */

/** The columns the export reads: every column but the user-agent and client-IP pseudonyms. */
const COLUMNS = AUDIT_EVENT_FIELDS.filter(
  (column) => column !== 'request_user_agent' && column !== 'request_client_ip_digest',
).join(', ');

/**
 * The JSON text of the view's nested objects, its `"` written as `quote`: `"` for NDJSON, `""`
 * for a CSV cell (already doubled, so the cell is just wrapped in `"` — no `replace` over the
 * whole object).
 */
interface JsonText {
  /** A constant piece of JSON (its `"` become the quote). */
  readonly raw: (json: string) => string;
  /** A free-text column as a JSON value (`null` when absent). */
  readonly json: (column: string) => string;
  /** A column that never needs escaping (see above) as a JSON string (`null` when absent). */
  readonly plain: (column: string) => string;
}

function jsonText(quote: '"' | '""'): JsonText {
  const raw = (json: string) => `'${json.replaceAll('"', quote)}'`;
  return {
    raw,
    json: (column) =>
      quote === '"'
        ? `coalesce(to_json(${column})::text, 'null')`
        : `coalesce(replace(to_json(${column})::text, '"', '""'), 'null')`,
    plain: (column) => `coalesce(${raw('"')} || ${column} || ${raw('"')}, 'null')`,
  };
}

/** `auditEventView(event)`'s `actor`, `target` and `request` as JSON text (SQL expressions, absent → null). */
function viewObjects({ raw, json, plain }: JsonText) {
  return {
    // An unknown actor type reads as `system`, like the row mapper.
    actor: `case actor_type
      when 'user' then ${raw('{"type":"user","userId":')} || ${plain('actor_user_id')} || '}'
      when 'service' then ${raw('{"type":"service","serviceIdentityId":')} || ${plain('actor_service_identity_id')} || '}'
      when 'anonymous' then ${raw('{"type":"anonymous"}')}
      else ${raw('{"type":"system"}')} end`,
    target: `case when target_type is null then null
      else ${raw('{"type":"')} || target_type || ${raw('","id":')} || ${json('target_id')} || '}' end`,
    request: `case when request_id is null then null
      else ${raw('{"requestId":"')} || request_id || ${raw('","method":')} || ${json('request_method')}
        || ${raw(',"path":')} || ${json('request_path')}
        || ${raw(',"trustedProxy":')} || case when request_trusted_proxy then 'true' else 'false' end || '}' end`,
  };
}

const OCCURRED_AT = `replace(to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '.000Z', 'Z')`;

const NDJSON = jsonText('"');

/** `JSON.stringify(auditEventView(event))` + LF. */
const NDJSON_LINE = `'{"id":"' || id || '","actor":' || actor
      || ',"organizationId":"' || ?::text || '","action":"' || action
      || '"' || coalesce(',"target":' || target, '') || ',"outcome":"' || outcome || '"'
      || coalesce(',"reasonCode":' || to_json(reason_code)::text, '') || coalesce(',"request":' || request, '')
      || ',"occurredAt":"' || occurred || '"}' || chr(10)`;

/** `csvCell` of text: a formula-like first character gets `'`; quoted when it holds `"` `,` CR or LF. */
const csvText = (column: string) => {
  const guarded = `case when left(${column}, 1) in ('=', '+', '-', '@', chr(9), chr(13)) then '''' || ${column} else ${column} end`;
  return `coalesce(case when ${column} ~ ('[",' || chr(13) || chr(10) || ']')
      then '"' || replace(${guarded}, '"', '""') || '"' else ${guarded} end, '')`;
};

/**
 * `csvRow` of the view's columns (`id,actor,organizationId,action,target,outcome,reasonCode,request,occurredAt`):
 * the objects (built with doubled quotes) quoted, absent ones empty.
 */
const CSV_LINE = `id::text || ',"' || actor || '",' || ?::text
      || ',' || action || ',' || coalesce('"' || target || '"', '') || ',' || outcome
      || ',' || ${csvText('reason_code')} || ',' || coalesce('"' || request || '"', '') || ',' || occurred
      || chr(13) || chr(10)`;

/**
 * Lines per text of a batch: about 70 KiB at the usual ~350 bytes a line, under the size from which
 * V8 allocates a string in its large-object space (128 KiB), where building and collecting the
 * 1,000-line text of a whole batch cost the server ~4 ns a byte against ~0.1 (bench/audit/export.mjs).
 */
const LINES_PER_TEXT = 200;

/**
 * One keyset batch (`audit_events_organization_keyset_index`, as route 29) of at most `limit + 1`
 * events, numbered newest first; the first `limit` lines joined in that order into one text per
 * {@link LINES_PER_TEXT} lines (one row each, in order), each row also carrying how many events
 * were fetched and the position of the last of the first `limit`. The extra event only says whether
 * more exist (it may leave a row whose text is null).
 */
function batchStatement(line: string, objects: ReturnType<typeof viewObjects>, after: boolean): string {
  return `with page as (
    select ${COLUMNS} from ${table('audit_events')}
     where organization_id = ?${after ? ' and (occurred_at, id) < (?::timestamptz, ?::uuid)' : ''}
     order by occurred_at desc, id desc limit ?::int
  ), parts as (
    select row_number() over (order by occurred_at desc, id desc) as n, count(*) over () as total,
      id, action, outcome, reason_code, occurred_at,
      ${objects.actor} as actor, ${objects.target} as target, ${objects.request} as request, ${OCCURRED_AT} as occurred
    from page
  )
  select (n - 1) / ${LINES_PER_TEXT} as part,
    string_agg(${line}, '' order by n) filter (where n <= ?::int) as body,
    (sum(count(*)) over ())::int as fetched,
    max(max(id::text) filter (where n = least(total, ?::int))) over () as last_id,
    max(max(occurred_at) filter (where n = least(total, ?::int))) over () as last_at
  from parts group by 1 order by 1`;
}

/**
 * The positions of every `step`-th event after a position (route 29's order): an index-only scan
 * of `audit_events_organization_keyset_index` over `step × count` entries, about 0.3 µs each
 * against the ~9 µs of building an event's line.
 */
function positionsStatement(after: boolean): string {
  return `select occurred_at, id from (
    select occurred_at, id, row_number() over (order by occurred_at desc, id desc) as n
      from ${table('audit_events')}
     where organization_id = ?${after ? ' and (occurred_at, id) < (?::timestamptz, ?::uuid)' : ''}
     order by occurred_at desc, id desc limit ?::int
  ) as ahead where n % ?::int = 0 order by n`;
}

const POSITIONS = { first: positionsStatement(false), next: positionsStatement(true) };

const NDJSON_OBJECTS = viewObjects(NDJSON);
const CSV_OBJECTS = viewObjects(jsonText('""'));
const STATEMENTS: Record<AuditExportLineFormat, { readonly first: string; readonly next: string }> = {
  ndjson: {
    first: batchStatement(NDJSON_LINE, NDJSON_OBJECTS, false),
    next: batchStatement(NDJSON_LINE, NDJSON_OBJECTS, true),
  },
  csv: { first: batchStatement(CSV_LINE, CSV_OBJECTS, false), next: batchStatement(CSV_LINE, CSV_OBJECTS, true) },
};

/**
 * The audit export read (identity-model §9.1 `exportAuditEventLines`): one named prepared
 * statement per format and keyset position returns a whole batch as ONE text row, so neither the
 * driver nor the server process handles a row object, a view or a `Date` per event.
 *
 * @example
 * const batch = await new IdentityAuditExportReads(gateway).exportAuditEventLines(orgId, { limit: 1000, format: 'csv' });
 */
export class IdentityAuditExportReads {
  constructor(private readonly gateway: StoreGateway) {}

  findAuditEventPositions(
    organizationId: string,
    query: { readonly after?: AuditEventPosition; readonly step: number; readonly count: number },
  ): Promise<AuditEventPosition[]> {
    const { after, step, count } = query;
    if (!Number.isSafeInteger(step) || !Number.isSafeInteger(count) || step < 1 || count < 1 || step * count >= 2 ** 31)
      return Promise.reject(new RangeError('audit position step and count must be positive'));
    if (!isUuid(organizationId) || (after !== undefined && !isUuid(after.id))) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) => {
      const rows =
        after === undefined
          ? await sql(POSITIONS.first, [organizationId, step * count, step])
          : await sql(POSITIONS.next, [organizationId, after.occurredAt.toISOString(), after.id, step * count, step]);
      return rows.map((row) => ({ id: text(row, 'id'), occurredAt: instant(row, 'occurred_at') }));
    });
  }

  exportAuditEventLines(
    organizationId: string,
    batch: { readonly limit: number; readonly after?: AuditEventPosition; readonly format: AuditExportLineFormat },
  ): Promise<AuditExportBatch> {
    const { limit, after, format } = batch;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit >= 2 ** 31 - 1)
      return Promise.reject(new RangeError('audit export batch limit must be positive'));
    if (!isUuid(organizationId) || (after !== undefined && !isUuid(after.id))) {
      return this.gateway.read(async () => ({ texts: [], count: 0, hasMore: false }));
    }
    const statements = STATEMENTS[format === 'csv' ? 'csv' : 'ndjson'];
    return this.gateway.read(async (sql) => {
      // The organization's id as the view writes it (every event of the batch has it).
      const tail = [limit + 1, organizationId.toLowerCase(), limit, limit, limit];
      const rows =
        after === undefined
          ? await sql(statements.first, [organizationId, ...tail])
          : await sql(statements.next, [organizationId, after.occurredAt.toISOString(), after.id, ...tail]);
      const [row] = rows;
      const fetched = Number(row?.['fetched'] ?? 0);
      const count = Math.min(fetched, limit);
      return {
        texts: rows.flatMap((part) => (typeof part['body'] === 'string' ? [part['body']] : [])),
        count,
        // The position as route 29's row mapper reads it (the cursor of the same event is the same).
        ...(count === 0 || row === undefined
          ? {}
          : { last: { id: text(row, 'last_id'), occurredAt: instant(row, 'last_at') } }),
        hasMore: fetched > limit,
      };
    });
  }
}
