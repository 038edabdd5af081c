// Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:scim
// SCIM 2.0 benchmark (issue 15) on the PostgreSQL server: one Nest app (bench/scim/server.mjs, a
// fresh database per run, dropped at the end) with one organization, its Okta SCIM connection
// (created over HTTP by the owner; group "Admins" → admin) and `--users` SCIM users (default
// 100,000: the first `--http-users` (1,000) created over POST /scim/v2/Users, the rest cloned in
// SQL from those rows, then ANALYZE), `--groups` groups (5, "Admins" first) with `--prefill`
// members each (800, added over PATCH in batches of 100). Timed, `--concurrency` clients (10):
// 1. GET /scim/v2/Users?filter=userName eq "<random existing user>" for `--duration` s (each answer
//    must be that one user);
// 2. a compound filter for `--duration` s: (userName sw "user.<random 4 digits>" or externalId eq
//    "<random user's>") and active eq true and emails[type eq "work" and value co "@example.org"]
//    (answers other than 200 counted by status);
// 3. user PATCH: `--patches` (1,000) replaces of displayName, each on another user;
// 4. group PATCH storm: `--patches` membership changes over the groups (user k of the round goes to
//    group k mod groups; first every add (Okta: op add, path members), then every remove (Okta:
//    op remove, path members[value eq "…"])), the groups' sizes checked after the round; a 409
//    (Better Auth's answer to a concurrent change of the same group) is retried and counted.
// The competitor, same run, rounds interleaved: Better Auth 1.7.5 with @better-auth/scim 1.7.5
// (bench/scim/better-auth-server.mjs; packages in bench/scim/better-auth, installed on first use),
// seeded the same way; phases 1, 3 and 4 (its filter grammar refuses phase 2: the refusal is
// reported). After the rounds, EXPLAIN (ANALYZE, BUFFERS) of the statements Tessera's store ran for
// one request of phases 1 and 2, and of those Better Auth ran for one of phase 1 (bench/scim/explain.mjs).
// Reports medians of `--rounds` (5) rounds after one warm-up round. Targets: filtered list p50 <
// 10 ms at 100k users; PATCH p99 < 50 ms at concurrency 10.
// Options: --rounds 5 --duration 5 --warmup 3 --concurrency 10 --users 100000 --http-users 1000
// --groups 5 --prefill 800 --patches 1000 --competitor better-auth|none
// --plan-cache-mode auto|force_custom_plan (PostgreSQL's setting on Tessera's bench database).
import { randomBytes, randomInt } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { expectStatus, request, startBenchServer, stopBenchServer } from '../support/bench-http.mjs';
import { closedLoop, fixedWork } from '../support/load-loops.mjs';
import { startBetterAuthScim } from './better-auth-bench.mjs';
import { explainMarkdown, explainStatements } from './explain.mjs';
import { printScimReport } from './scim-report.mjs';
import { userTokens } from './seed-rows.mjs';
import { tesseraScim } from './tessera-scim.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/scim runs on a PostgreSQL server: set DATABASE_URL');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 5);
const duration = arg('duration', 5);
const warmup = arg('warmup', 3);
const concurrency = arg('concurrency', 10);
const users = arg('users', 100_000);
const httpUsers = arg('http-users', 1000);
const groupCount = arg('groups', 5);
const prefill = arg('prefill', 800);
const patches = arg('patches', 1000);
const competitorName = (() => {
  const i = process.argv.indexOf('--competitor');
  return i === -1 ? 'better-auth' : process.argv[i + 1];
})();
if (!['better-auth', 'none'].includes(competitorName)) throw new Error('--competitor better-auth|none');
const planCacheMode = (() => {
  const i = process.argv.indexOf('--plan-cache-mode');
  return i === -1 ? 'auto' : process.argv[i + 1];
})();
if (patches % 2 !== 0) throw new Error('--patches: an even number (half adds, half removes)');
const storm = patches / 2;
if (httpUsers < 10 || users < 20_000 + groupCount * prefill + (rounds + 1) * (patches + storm))
  throw new Error('bench/scim: too few --users for the rounds');
const log = (line) => process.stderr.write(`${line}\n`);

// Disjoint user ranges: PATCHed users from 10,001; group prefill after them; storm users last.
const patchedUser = (round, i) => 10_001 + round * patches + i;
const prefillUser = (group, i) => 10_001 + (rounds + 1) * patches + group * prefill + i;
const stormUser = (round, k) => 10_001 + (rounds + 1) * patches + groupCount * prefill + round * storm + k;
const randomUser = () => randomInt(1, users + 1);
const compoundFilter = () =>
  `(userName sw "user.${randomInt(1000, 10_000)}" or externalId eq "${userTokens(randomUser()).externalId}") ` +
  `and active eq true and emails[type eq "work" and value co "@example.org"]`;

const bootstrapSecret = randomBytes(24).toString('base64url');
const server = await startBenchServer(fileURLToPath(new URL('./server.mjs', import.meta.url)), {
  env: { BENCH_BOOTSTRAP_SECRET: bootstrapSecret, BENCH_PLAN_CACHE_MODE: planCacheMode },
});
const stats = async () => expectStatus(await request(server.base, 'GET', '/__bench/stats'), 200, 'stats').json;
const resetStats = async () => expectStatus(await request(server.base, 'POST', '/__bench/reset'), 201, 'reset');

/** Each side's share of a phase: its server's CPU (and Tessera's store) per operation. */
function accounting(side) {
  if (side.name === 'Tessera')
    return {
      reset: resetStats,
      async collect(loop) {
        const s = await stats();
        const n = loop.completions;
        return {
          ...loop,
          cpuMs: s.cpuMs / n,
          storeMs: s.store.ms / n,
          storeCalls: s.store.calls / n,
          statements: s.statements / n,
          methods: s.store.methods,
          postgres: s.postgres,
        };
      },
    };
  return {
    reset: async () => {
      await competitor.reset();
      await competitor.statementCount();
    },
    collect: async (loop) => ({
      ...loop,
      cpuMs: (await competitor.cpuMs()) / loop.completions,
      statements: (await competitor.statementCount()) / loop.completions,
    }),
  };
}

async function timed(side, run) {
  const account = accounting(side);
  await account.reset();
  return account.collect(await run());
}

const listRound = (side, seconds, clients = concurrency) =>
  timed(side, () => closedLoop(clients, seconds, () => side.findByUserName(randomUser())));
/** The compound filter for `seconds`; answers other than 200 are counted by status, not fatal. */
async function compoundRound(side, seconds, clients = concurrency) {
  const failures = {};
  const result = await timed(side, () =>
    closedLoop(clients, seconds, async () => {
      const res = await side.call('GET', `/Users?filter=${encodeURIComponent(compoundFilter())}`);
      if (res.status !== 200) failures[res.status] = (failures[res.status] ?? 0) + 1;
    }),
  );
  return { ...result, failures };
}
// The warm-up round sends at most 200 PATCHes per phase.
const patchesOf = (round) => (round === 0 ? Math.min(200, patches) : patches);
const userPatchRound = (side, round) =>
  timed(side, () =>
    fixedWork(
      Array.from({ length: patchesOf(round) }, (_, i) => patchedUser(round, i)),
      concurrency,
      (n) => side.renameUser(n, round),
    ),
  );

async function groupStormRound(side, groups, round) {
  const count = patchesOf(round);
  const items = Array.from({ length: count }, (_, i) => ({ add: i < count / 2, k: i % (count / 2) }));
  side.conflicts = 0;
  const result = await timed(side, () =>
    fixedWork(items, concurrency, ({ add, k }) => {
      const group = groups[k % groupCount];
      const n = stormUser(round, k);
      return add ? side.addMembers(group, [n]) : side.removeMember(group, n);
    }),
  );
  const sizes = await Promise.all(groups.map((group) => side.memberIds(group).then((ids) => ids.length)));
  return { ...result, conflicts: side.conflicts, exact: sizes.every((size) => size === prefill), sizes };
}

/** The groups ("Admins", "Group 2", …), each with `prefill` members added in PATCHes of 100. */
async function createGroups(side) {
  const groups = [];
  for (let g = 0; g < groupCount; g++) {
    const id = await side.createGroup(g === 0 ? 'Admins' : `Group ${g + 1}`);
    for (let i = 0; i < prefill; i += 100) {
      const batch = Array.from({ length: Math.min(100, prefill - i) }, (_, j) => prefillUser(g, i + j));
      await side.addMembers(id, batch);
    }
    groups.push(id);
  }
  return groups;
}

let competitor;
try {
  const tessera = await tesseraScim({
    base: server.base,
    databaseUrl: server.databaseUrl,
    bootstrapSecret,
    users,
    httpUsers,
    concurrency,
    log,
  });
  const sides = [{ side: tessera.side, groups: await createGroups(tessera.side) }];
  let refusal;
  if (competitorName === 'better-auth') {
    competitor = await startBetterAuthScim({ users, httpUsers, concurrency, log });
    sides.push({ side: competitor.side, groups: await createGroups(competitor.side) });
    const refused = await competitor.side.call('GET', `/Users?filter=${encodeURIComponent(compoundFilter())}`);
    refusal = { status: refused.status, body: refused.text };
  }
  log(`set-up done: ${users} users and ${groupCount} groups of ${prefill} members per side`);

  const results = sides.map(() => ({
    listSerial: [],
    list: [],
    compoundSerial: [],
    compound: [],
    userPatch: [],
    groupStorm: [],
  }));
  for (let round = 0; round <= rounds; round++) {
    const seconds = round === 0 ? warmup : duration;
    const line = [];
    for (const [s, { side, groups }] of sides.entries()) {
      const r = {
        listSerial: await listRound(side, seconds, 1),
        list: await listRound(side, seconds),
        compoundSerial: s === 0 ? await compoundRound(side, seconds, 1) : undefined,
        compound: s === 0 ? await compoundRound(side, seconds) : undefined,
        userPatch: await userPatchRound(side, round),
        groupStorm: await groupStormRound(side, groups, round),
      };
      if (round > 0) for (const [phase, value] of Object.entries(r)) if (value) results[s][phase].push(value);
      line.push(
        `${side.name}: list p50 ${r.listSerial.p50.toFixed(1)} ms (1 client), ${r.list.p50.toFixed(1)} ms` +
          (r.compound
            ? `, compound p50 ${r.compound.p50.toFixed(1)} ms (non-200: ${JSON.stringify(r.compound.failures)})`
            : '') +
          `, user PATCH p99 ${r.userPatch.p99.toFixed(1)} ms, group PATCH p99 ${r.groupStorm.p99.toFixed(1)} ms` +
          (r.groupStorm.exact ? '' : ` (group sizes ${r.groupStorm.sizes.join('/')}!)`),
      );
    }
    log(`${round === 0 ? 'warm-up' : `round ${round}/${rounds}`}: ${line.join('; ')}`);
  }

  // One untimed request of each filter, its statements captured by the server, then EXPLAINed.
  const explained = {};
  for (const [phase, filter] of [
    ['userName eq', `userName eq "${userTokens(randomUser()).userName}"`],
    ['compound', compoundFilter()],
  ]) {
    await resetStats();
    // Its statements are captured whatever it answers (a statement timeout answers 503).
    const { status } = await tessera.side.call('GET', `/Users?filter=${encodeURIComponent(filter)}`);
    const captured = (await stats()).sql;
    explained[`Tessera, ${phase} (answered ${status})`] = {
      filter,
      statements: await explainStatements(server.databaseUrl, captured),
    };
  }

  if (competitor !== undefined) {
    const filter = `userName eq "${userTokens(randomUser()).userName}"`;
    const captured = await competitor.statementsOf(() => competitor.side.list(filter, 1));
    explained['Better Auth, userName eq'] = {
      filter,
      statements: await explainStatements(competitor.databaseUrl, captured),
    };
  }

  const cpus = os.cpus();
  printScimReport({
    header:
      `${cpus[0].model}, ${cpus.length} cores, Node ${process.version}; PostgreSQL ${results[0].list[0].postgres} (DATABASE_URL); ` +
      `${users} SCIM users per side (${httpUsers} over HTTP, the rest cloned in SQL), ${groupCount} groups of ${prefill} members; ` +
      `plan_cache_mode ${planCacheMode} (Tessera's database); concurrency ${concurrency}; lists ${duration} s and ${patches} PATCHes per phase, round and side, ${rounds} rounds after a warm-up round`,
    concurrency,
    results,
    names: sides.map(({ side }) => side.name),
    competitorPostgres: competitor?.postgres,
    refusal,
  });
  for (const [phase, { filter, statements }] of Object.entries(explained))
    console.log(explainMarkdown(`EXPLAIN (ANALYZE, BUFFERS): statements of ${phase} — filter=${filter}`, statements));
} finally {
  await competitor?.stop();
  await stopBenchServer(server);
}
