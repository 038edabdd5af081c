/** First characters that make a spreadsheet read a cell as a formula (OWASP CSV injection). */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r']);
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell (RFC 4180): text that starts like a formula (`= + - @`, tab, CR) gets a leading
 * `'` so spreadsheets show it as text; a cell holding `"`, `,`, CR or LF is quoted with inner `"`
 * doubled; `null`/`undefined` is the empty cell; objects are their JSON text; other values their
 * `String`.
 *
 * @example
 * csvCell('=HYPERLINK("x")'); // '"\'=HYPERLINK(""x"")"'
 * csvCell({ type: 'system' }); // '"{""type"":""system""}"'
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (text.length > 0 && FORMULA_START.has(text[0]!)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * One CSV record ending in CRLF (RFC 4180 §2).
 *
 * @example
 * csvRow(['id', 'action']); // 'id,action\r\n'
 */
export function csvRow(cells: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += i === 0 ? csvCell(cells[i]) : `,${csvCell(cells[i])}`;
  return `${line}\r\n`;
}
