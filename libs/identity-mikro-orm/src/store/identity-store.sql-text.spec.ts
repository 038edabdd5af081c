import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = dirname(dirname(fileURLToPath(import.meta.url)));
const WHOLE_ROW = /\bselect\s+\*|\breturning\s+\*|\b[a-z_]+\.\*/i;

/**
 * Issue 11, item 2: a prepared statement that selects or returns `*` changes its result type when
 * a migration adds a column and fails `0A000` until its connection recycles. Every statement of
 * the adapter names its columns (`allColumns`, `prefixedFields`).
 */
describe('the SQL text of the identity store adapter', () => {
  const files = ['store', 'rate-limit'].flatMap((folder) =>
    readdirSync(join(SOURCE, folder))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))
      .map((name) => join(folder, name)),
  );

  it('never selects or returns whole rows with *', () => {
    expect(files.length).toBeGreaterThan(10);
    const offending = files.flatMap((file) =>
      readFileSync(join(SOURCE, file), 'utf8')
        .split('\n')
        .map((line, index) => ({ where: `${file}:${index + 1}`, line: line.trim() }))
        .filter(({ line }) => !line.startsWith('*') && !line.startsWith('//') && WHOLE_ROW.test(line)),
    );
    expect(offending).toEqual([]);
  });
});
