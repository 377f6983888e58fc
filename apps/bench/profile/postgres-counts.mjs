// What PostgreSQL does per request of the ready server (bench child around an engine, a
// throw-away cluster on the server's core): under autocannon, its CPU per request beside the
// server's, and per request its commits, rows inserted and updated, and WAL records, bytes and
// flushes, read from pg_stat_database, pg_stat_user_tables and pg_stat_wal before and after.
// node apps/bench/profile/postgres-counts.mjs [fixed|reference] [connections=50] [seconds=5] [ready-server.mjs arguments after the store…]
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChild } from '../src/lib/child.mjs';
import { jsonRequestBody } from '../src/lib/fixtures.mjs';
import { pinning } from '../src/lib/options.mjs';
import { startPostgres } from '../src/lib/postgres.mjs';
import { startLoad, withServerCpu } from '../src/lib/servers.mjs';

const [engine = 'fixed'] = process.argv.slice(2, 3);
const [connections = 50, seconds = 5] = process.argv.slice(3, 5).map(Number);
const postgres = await startPostgres({ cpu: pinning?.server });
if (postgres === undefined) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql).');
const server = await startChild(fileURLToPath(new URL('../src/servers/ready-server.mjs', import.meta.url)), {
  role: 'server',
  args: ['ready', engine, 'postgres', ...process.argv.slice(5)],
  stdout: 'ignore',
  env: { DATABASE_URL: postgres.url },
});
// The driver the store uses, from the package that depends on it.
const connect = createRequire(new URL('../../../packages/access-control/package.json', import.meta.url))('postgres');
const sql = connect(postgres.url, { max: 1, onnotice: () => undefined });
const load = await startLoad();
const headers = { 'content-type': 'application/json', authorization: `Bearer ${server.ready.key}` };
const run = (duration) => load.call('autocannon', { url: `http://127.0.0.1:${server.ready.port}/v1/chat/completions`, body: jsonRequestBody, headers, connections, seconds: duration });

/** The cluster's counters now (a fresh snapshot: statistics are cached per transaction otherwise). */
async function counters() {
  await sql`SELECT pg_stat_clear_snapshot()`;
  const [database] = await sql`SELECT xact_commit::bigint AS commits FROM pg_stat_database WHERE datname = current_database()`;
  const tables = await sql`SELECT relname, n_tup_ins::bigint AS inserted, n_tup_upd::bigint AS updated FROM pg_stat_user_tables`;
  const [wal] = await sql`SELECT wal_records::bigint AS records, wal_bytes::bigint AS bytes, wal_sync::bigint AS flushes FROM pg_stat_wal`;
  return { commits: Number(database.commits), tables: new Map(tables.map((row) => [row.relname, { inserted: Number(row.inserted), updated: Number(row.updated) }])), wal: { records: Number(wal.records), bytes: Number(wal.bytes), flushes: Number(wal.flushes) } };
}

try {
  await run(3);
  const before = await counters();
  const storeBefore = postgres.cpuSeconds();
  const { result, cpuSeconds } = await withServerCpu(server, () => run(seconds));
  const storeSeconds = postgres.cpuSeconds() - storeBefore;
  // The last settles' rows reach the counters once written.
  await sleep(500);
  const after = await counters();
  const perRequest = (value) => (value / result.requests).toFixed(3);
  console.log(`${engine}, ${connections} connections: ${Math.round(result.requests / result.seconds)} req/s; CPU a request: server ${((cpuSeconds * 1e6) / result.requests).toFixed(1)} µs, PostgreSQL ${((storeSeconds * 1e6) / result.requests).toFixed(1)} µs`);
  console.log(`per request: ${perRequest(after.commits - before.commits)} commits; WAL ${perRequest(after.wal.records - before.wal.records)} records, ${((after.wal.bytes - before.wal.bytes) / result.requests).toFixed(0)} bytes, ${perRequest(after.wal.flushes - before.wal.flushes)} flushes`);
  for (const [table, { inserted, updated }] of after.tables) {
    const earlier = before.tables.get(table) ?? { inserted: 0, updated: 0 };
    if (inserted === earlier.inserted && updated === earlier.updated) continue;
    console.log(`  ${table}: ${perRequest(inserted - earlier.inserted)} rows inserted, ${perRequest(updated - earlier.updated)} updated a request`);
  }
} finally {
  await sql.end();
  await load.stop();
  await server.stop();
  await postgres.stop();
}
