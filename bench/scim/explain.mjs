// The EXPLAIN part of bench/scim: the statements the Tessera store ran for one list request
// (captured by bench/scim/server.mjs from its `pg` driver: text with `$n` placeholders and the
// parameters it bound) are explained on the bench database with the same parameters, and each is
// also run ten times the way the store sent it: a named prepared statement (PostgreSQL's plan
// cache then tells whether it keeps custom plans, planned with the values like the EXPLAIN, or
// switched to a generic plan) or an unnamed one (planned with its values every time); the mean
// time of those runs is reported beside it.
import { performance } from 'node:perf_hooks';
import pg from 'pg';

const PREPARED_RUNS = 10;

/**
 * For each captured `{ text, values, named }`: `{ text, values, named, plan, customPlans,
 * genericPlans, runMs }` (`plan`: the lines of `EXPLAIN (ANALYZE, BUFFERS)`).
 */
export async function explainStatements(databaseUrl, statements) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const explained = [];
    for (const [i, { text, values, named }] of statements.entries()) {
      const { rows } = await client.query(`explain (analyze, buffers) ${text}`, values);
      const name = `bench_scim_explain_${i}`;
      const t0 = performance.now();
      for (let run = 0; run < PREPARED_RUNS; run++)
        await client.query(named ? { name, text, values } : { text, values });
      const runMs = (performance.now() - t0) / PREPARED_RUNS;
      const [cache] = named
        ? (await client.query('select generic_plans, custom_plans from pg_prepared_statements where name = $1', [name]))
            .rows
        : [];
      explained.push({
        text,
        values,
        named,
        plan: rows.map((row) => row['QUERY PLAN']),
        customPlans: Number(cache?.custom_plans ?? 0),
        genericPlans: Number(cache?.generic_plans ?? 0),
        runMs,
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
    const how = e.named
      ? `as the store sends it, a named prepared statement (${PREPARED_RUNS} runs): ${e.customPlans} custom / ${e.genericPlans} generic plans`
      : `as the store sends it, unnamed (planned with its values every time; ${PREPARED_RUNS} runs)`;
    lines.push(
      `${i + 1}. Parameters ${JSON.stringify(e.values)}; ${how}, ${e.runMs.toFixed(2)} ms per run (client round trip).\n`,
    );
    lines.push('```sql', e.text.replace(/\s+/g, ' ').trim(), '```', '```', ...e.plan, '```');
  }
  return lines.join('\n');
}
