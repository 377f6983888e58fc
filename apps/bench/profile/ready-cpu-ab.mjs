// The ready server's CPU per JSON request against the same server built from another checkout,
// in one run, rounds alternated (ABBA): a quick A/B while working on the request path (the bench
// is the measurement). Both are bench children (`src/servers/ready-server.mjs`), pinned as the
// bench pins servers, each with its own SQLite store (or PostgreSQL, throw-away clusters).
// node apps/bench/profile/ready-cpu-ab.mjs <other checkout> [fixed|reference] [sqlite|postgres] [rounds=8] [seconds=3]
// READY_AB_CONNECTIONS sets autocannon's connections (50 by default); READY_AB_OTHER_ARGS adds
// arguments to the other side's ready-server.mjs (e.g. `durable leases`: the same checkout, `.`,
// with the day's leases on).
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild } from '../src/lib/child.mjs';
import { jsonRequestBody } from '../src/lib/fixtures.mjs';
import { pinning } from '../src/lib/options.mjs';
import { startPostgres } from '../src/lib/postgres.mjs';
import { startLoad, withServerCpu } from '../src/lib/servers.mjs';

const [other, engine = 'fixed', store = 'sqlite'] = process.argv.slice(2, 5);
const [rounds = 8, seconds = 3] = process.argv.slice(5, 7).map(Number);
if (other === undefined) throw new Error('usage: ready-cpu-ab.mjs <other checkout> [fixed|reference] [sqlite|postgres] [rounds] [seconds]');
const script = (root) => join(root, 'apps/bench/src/servers/ready-server.mjs');
const sides = { other: script(resolve(other)), this: fileURLToPath(new URL('../src/servers/ready-server.mjs', import.meta.url)) };
const load = await startLoad();
const servers = {};
const clusters = [];
for (const [name, path] of Object.entries(sides)) {
  const postgres = store === 'postgres' ? await startPostgres({ cpu: pinning?.server }) : undefined;
  if (postgres) clusters.push(postgres);
  const extra = name === 'other' ? (process.env.READY_AB_OTHER_ARGS?.split(' ').filter(Boolean) ?? []) : [];
  const server = await startChild(path, { role: 'server', args: ['ready', engine, store, ...extra], stdout: 'ignore', env: postgres ? { DATABASE_URL: postgres.url } : {} });
  servers[name] = { server, url: `http://127.0.0.1:${server.ready.port}/v1/chat/completions`, key: server.ready.key, postgres };
}
const measure = async (name, duration) => {
  const { server, url, key, postgres } = servers[name];
  const storeBefore = postgres?.cpuSeconds();
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const { result, cpuSeconds } = await withServerCpu(server, () => load.call('autocannon', { url, body: jsonRequestBody, headers, connections: Number(process.env.READY_AB_CONNECTIONS ?? 50), seconds: duration }));
  const storeSeconds = postgres ? postgres.cpuSeconds() - storeBefore : 0;
  return { reqPerSec: result.requests / result.seconds, cpuUs: (cpuSeconds * 1e6) / result.requests, storeUs: (storeSeconds * 1e6) / result.requests, non2xx: result.non2xx };
};
for (const name of Object.keys(servers)) await measure(name, 2);
const ratios = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ['other', 'this'] : ['this', 'other'];
  const figures = {};
  for (const name of order) figures[name] = await measure(name, seconds);
  const ratio = (figures.this.cpuUs + figures.this.storeUs) / (figures.other.cpuUs + figures.other.storeUs);
  ratios.push(ratio);
  const line = (name) => `${name} ${Math.round(figures[name].reqPerSec)} req/s ${figures[name].cpuUs.toFixed(1)} µs${store === 'postgres' ? ` + PG ${figures[name].storeUs.toFixed(1)} µs` : ''}${figures[name].non2xx ? ` (${figures[name].non2xx} non-2xx)` : ''}`;
  console.log(`round ${round + 1}: ${line('other')} | ${line('this')} | this/other CPU ${ratio.toFixed(3)}`);
}
ratios.sort((a, b) => a - b);
console.log(`this/other CPU per request: median ${ratios[Math.floor(ratios.length / 2)].toFixed(3)}, range ${ratios[0].toFixed(3)}–${ratios.at(-1).toFixed(3)}`);
await load.stop();
for (const { server } of Object.values(servers)) await server.stop();
for (const cluster of clusters) await cluster.stop();
