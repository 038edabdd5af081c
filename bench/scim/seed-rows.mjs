// Bulk seeding of bench/scim (both sides): SCIM users past the first ones created over HTTP are
// cloned in SQL from one of those (the template user `t`) with `generate_series`, so each table
// gets exactly the rows the product's own create wrote, with the per-user values substituted:
// - every text column: the template user's tokens (userName, work email, displayName, familyName,
//   externalId of user `t`) replaced by user `n`'s (`replace()` chains, so serialized copies such
//   as Better Auth's JSON columns follow too);
// - the columns a caller names (ids, keys, timestamps): its SQL expression of `n`;
// - everything else: the template's value.
// Before inserting, the expressions are evaluated for `n = t` and compared with the template row
// itself: any column that differs and is not declared per-user (`perUser`) fails the seed, so a
// value the product derives in a way the bench does not know cannot slip in unnoticed.
// Only constant SQL written here and `$n` parameters reach the database.

/** The per-user values of SCIM user `n` (what the HTTP creates send, and what the clones get). */
export function userTokens(n) {
  return {
    userName: `user.${n}@example.com`,
    email: `user.${n}@example.org`,
    displayName: `User ${n}`,
    familyName: `Person${n}`,
    externalId: `00u${String(n).padStart(8, '0')}`,
  };
}

/** The same tokens as SQL expressions of the integer column `n`, in the order of {@link userTokens}. */
const TOKEN_SQL = [
  `'user.' || n || '@example.com'`,
  `'user.' || n || '@example.org'`,
  `'User ' || n`,
  `'Person' || n`,
  `'00u' || lpad(n::text, 8, '0')`,
];

/** The POST /Users body of user `n` (Okta's create shape; its password placeholder left out). */
export function userBody(n) {
  const t = userTokens(n);
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: t.userName,
    externalId: t.externalId,
    name: { givenName: 'User', familyName: t.familyName },
    displayName: t.displayName,
    emails: [{ value: t.email, type: 'work', primary: true }],
    active: true,
  };
}

const quoteIdent = (name) => `"${name.replace(/"/g, '""')}"`;

async function columnsOf(client, schema, table) {
  const { rows } = await client.query(
    `select column_name, data_type from information_schema.columns
      where table_schema = $1 and table_name = $2 order by ordinal_position`,
    [schema, table],
  );
  if (rows.length === 0) throw new Error(`seed: no table ${schema}.${table}`);
  return rows;
}

/**
 * Clones the template rows of `table` (those `templateWhere` selects, a predicate over `t0` using
 * the parameters `params` as `$1`…) once for every `n` in `from..to`. `exprs` maps a column to
 * its SQL expression of `n` (over `t0`, may use `params` too); `perUser` lists the columns that may differ from the
 * template at `n = t` (ids, random keys, timestamps). Resolves with the number of rows inserted.
 */
export async function cloneRows(
  client,
  { schema, table, templateN, templateWhere, params = [], exprs = {}, perUser = [], from, to },
) {
  const columns = await columnsOf(client, schema, table);
  const tokenParams = Object.values(userTokens(templateN));
  const lo = params.length + 1;
  const first = lo + 2;
  let chained = false;
  const chain = (reference) => {
    chained = true;
    return TOKEN_SQL.reduce((inner, sql, i) => `replace(${inner}, $${first + i}::text, ${sql})`, reference);
  };
  const select = columns.map(({ column_name: name, data_type: type }) => {
    if (exprs[name] !== undefined) return `${exprs[name]} as ${quoteIdent(name)}`;
    const reference = `t0.${quoteIdent(name)}`;
    return type === 'text' ? `${chain(reference)} as ${quoteIdent(name)}` : `${reference} as ${quoteIdent(name)}`;
  });
  // The template's tokens are parameters only when some text column is copied through `replace()`.
  if (!chained) tokenParams.length = 0;
  const source = `from generate_series($${lo}::int, $${lo + 1}::int) as g(n)
    cross join (select * from ${quoteIdent(schema)}.${quoteIdent(table)} t0 where ${templateWhere}) t0`;
  const templateRows = (
    await client.query(`select * from ${quoteIdent(schema)}.${quoteIdent(table)} t0 where ${templateWhere}`, [
      ...params,
    ])
  ).rows;
  const regenerated = (
    await client.query(`select ${select.join(', ')} ${source}`, [...params, templateN, templateN, ...tokenParams])
  ).rows;
  if (templateRows.length === 0 || regenerated.length !== templateRows.length)
    throw new Error(`seed ${table}: ${templateRows.length} template rows, ${regenerated.length} regenerated`);
  for (const [i, row] of templateRows.entries())
    for (const { column_name: name } of columns) {
      if (perUser.includes(name)) continue;
      if (JSON.stringify(row[name]) !== JSON.stringify(regenerated[i][name]))
        throw new Error(`seed ${table}.${name}: the clone of user ${templateN} differs from the row its create wrote`);
    }

  const names = columns.map((c) => quoteIdent(c.column_name)).join(', ');
  const result = await client.query(
    `insert into ${quoteIdent(schema)}.${quoteIdent(table)} (${names}) select ${select.join(', ')} ${source}`,
    [...params, from, to, ...tokenParams],
  );
  return result.rowCount;
}
