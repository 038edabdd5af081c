// The EXPLAIN part of bench/scim: the statements the Tessera store ran for one list request
// (captured by bench/scim/server.mjs from its `pg` driver: text with `$n` placeholders and the
// parameters it bound) are explained on the bench database with the same parameters, and each is
// also run as a named prepared statement, as the store runs it, ten times: PostgreSQL's plan cache
// then tells whether it keeps custom plans (planned with the values, like the EXPLAIN) or switched
// to a generic plan, and the mean execution time of the prepared runs is reported beside it.
import { performance } from 'node:perf_hooks';
import pg from 'pg';

const PREPARED_RUNS = 10;

/**
 * For each captured `{ text, values }`: `{ text, values, plan, customPlans, genericPlans,
 * preparedMs }` (`plan`: the lines of `EXPLAIN (ANALYZE, BUFFERS)`).
 */
export async function explainStatements(databaseUrl, statements) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const explained = [];
    for (const [i, { text, values }] of statements.entries()) {
      const { rows } = await client.query(`explain (analyze, buffers) ${text}`, values);
      const name = `bench_scim_explain_${i}`;
      const t0 = performance.now();
      for (let run = 0; run < PREPARED_RUNS; run++) await client.query({ name, text, values });
      const preparedMs = (performance.now() - t0) / PREPARED_RUNS;
      const [cache] = (
        await client.query('select generic_plans, custom_plans from pg_prepared_statements where name = $1', [name])
      ).rows;
      explained.push({
        text,
        values,
        plan: rows.map((row) => row['QUERY PLAN']),
        customPlans: Number(cache?.custom_plans ?? 0),
        genericPlans: Number(cache?.generic_plans ?? 0),
        preparedMs,
      });
    }
    return explained;
  } finally {
    await client.end();
  }
}

/** Markdown of explained statements under `title`. */
export function explainMarkdown(title, explained) {
  const lines = [`\n### ${title}\n`];
  for (const [i, e] of explained.entries()) {
    lines.push(
      `${i + 1}. Parameters ${JSON.stringify(e.values)}; as a named prepared statement (${PREPARED_RUNS} runs): ` +
        `${e.customPlans} custom / ${e.genericPlans} generic plans, ${e.preparedMs.toFixed(2)} ms per run (client round trip).\n`,
    );
    lines.push('```sql', e.text.replace(/\s+/g, ' ').trim(), '```', '```', ...e.plan, '```');
  }
  return lines.join('\n');
}
