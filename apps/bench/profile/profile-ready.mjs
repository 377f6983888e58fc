// The ready server (bench child: apps/server around an engine, SQLite or PostgreSQL) under
// autocannon with --cpu-prof: a warm-up, then a measured run; prints the measured run's server
// CPU per request (by /proc and by profile), by function and by package, warm-up left out.
// node apps/bench/profile/profile-ready.mjs [fixed|reference] [sqlite|postgres] [warmupSeconds=5] [seconds=10] [ready|bare] [durable|buffered]
// (`bare`: the bare Fastify route the ready server is compared with, for its profile side by side;
// `buffered`: usage rows written every 500 ms, the group-commit suite's baseline). PROFILE_LEASES=1 turns on
// the per-instance leases of the day's tokens (limits.dailyLeases).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild } from '../src/lib/child.mjs';
import { jsonRequestBody } from '../src/lib/fixtures.mjs';
import { pinning } from '../src/lib/options.mjs';
import { startPostgres } from '../src/lib/postgres.mjs';
import { startLoad, withServerCpu } from '../src/lib/servers.mjs';

const [engine = 'fixed', store = 'sqlite'] = process.argv.slice(2, 4);
const [warmupSeconds = 5, seconds = 10] = process.argv.slice(4, 6).map(Number);
const side = process.argv[6] ?? 'ready';
const usageWrites = process.argv[7] ?? 'durable';
const profileDir = mkdtempSync(join(tmpdir(), 'quantum-ready-prof-'));
const postgres = store === 'postgres' && side === 'ready' ? await startPostgres({ cpu: pinning?.server }) : undefined;
const server = await startChild(fileURLToPath(new URL('../src/servers/ready-server.mjs', import.meta.url)), {
  role: 'server',
  args: [side, engine, store, usageWrites, ...(process.env.PROFILE_LEASES ? ['leases'] : [])],
  nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
  stdout: 'ignore',
  env: postgres ? { DATABASE_URL: postgres.url } : {},
});
const load = await startLoad();
const url = `http://127.0.0.1:${server.ready.port}/v1/chat/completions`;
const headers = { 'content-type': 'application/json', authorization: `Bearer ${server.ready.key ?? 'qc_live_unused'}` };
const run = (duration) => withServerCpu(server, () => load.call('autocannon', { url, body: jsonRequestBody, headers, connections: 50, seconds: duration }));
await run(warmupSeconds);
const from = Date.now();
const { result, cpuSeconds } = await run(seconds);
console.log(`${result.requests} requests in ${result.seconds} s (${Math.round(result.requests / result.seconds)} req/s), ${result.non2xx} non-2xx; server CPU ${((cpuSeconds * 1e6) / result.requests).toFixed(1)} µs per request (${((100 * cpuSeconds) / result.seconds).toFixed(0)} % of a core)`);
await load.stop();
await server.stop();
const ended = Date.now();
await postgres?.stop();
const file = join(profileDir, readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile')));
const script = (name) => fileURLToPath(new URL(name, import.meta.url));
console.log(execFileSync(process.execPath, [script('./summarize-profile.mjs'), file, '40', String(result.requests), String(from), String(ended)], { encoding: 'utf8' }));
console.log(execFileSync(process.execPath, [script('./group-profile.mjs'), file, String(result.requests), String(from), String(ended)], { encoding: 'utf8' }));
console.log(`profile: ${file}`);
