/**
 * One CSV cell (RFC 4180): text that starts like a formula (`=`, `+`, `-`, `@`, tab, CR — OWASP
 * CSV injection) gets a leading `'` so spreadsheets show it as text; a cell holding `"`, `,`, CR
 * or LF is quoted with inner `"` doubled; `null`/`undefined` is the empty cell; objects are their
 * JSON text; other values their `String`.
 *
 * @example
 * csvCell('=HYPERLINK("x")'); // '"\'=HYPERLINK(""x"")"'
 * csvCell({ type: 'system' }); // '"{""type"":""system""}"'
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // An object's JSON text starts with `{` or `[` (no formula) and holds `"`: always quoted.
  if (typeof value === 'object') return `"${JSON.stringify(value).replaceAll('"', '""')}"`;
  let text = String(value);
  if (text.length === 0) return text;
  if (startsLikeFormula(text.charCodeAt(0))) text = `'${text}`;
  // One scan instead of a regular expression: this runs for every cell of an export.
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */ || c === 44 /* , */ || c === 13 /* CR */ || c === 10 /* LF */) {
      return `"${text.replaceAll('"', '""')}"`;
    }
  }
  return text;
}

function startsLikeFormula(c: number): boolean {
  return c === 61 /* = */ || c === 43 /* + */ || c === 45 /* - */ || c === 64 /* @ */ || c === 9 || c === 13;
}

/**
 * One CSV record ending in CRLF (RFC 4180 §2).
 *
 * @example
 * csvRow(['id', 'action']); // 'id,action\r\n'
 */
export function csvRow(cells: readonly unknown[]): string {
  let line = csvCell(cells[0]);
  for (let i = 1; i < cells.length; i++) line += `,${csvCell(cells[i])}`;
  return `${line}\r\n`;
}
