/**
 * Reads RFC 4180 CSV text (CRLF records, `"`-quoted fields with `""` escapes) into rows of cells,
 * strictly: a quote inside an unquoted field, text after a closing quote or an unterminated quoted
 * field throws. The test-side reader of the audit export's CSV.
 *
 * @example
 * parseCsv('a,"b,""c"""\r\n'); // [['a', 'b,"c"']]
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  if (text === '') return rows;
  for (;;) {
    let cell = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote === -1) throw new Error(`unterminated quoted field at ${i}`);
        cell += text.slice(i, quote);
        i = quote + 1;
        if (text[i] !== '"') break;
        cell += '"';
        i++;
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
        if (text[i] === '"' || text[i] === '\n') throw new Error(`bare ${JSON.stringify(text[i])} at ${i}`);
        cell += text[i++];
      }
    }
    row.push(cell);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
      if (i === text.length) return rows;
      continue;
    }
    throw new Error(`expected , or CRLF at ${i}`);
  }
}
