// Two builds of the ready server side by side in one run, with the bare proxy, under the bare-proxy
// suite's closed-loop load (autocannon, 32 connections; rounds alternate the order of the sides):
// CPU per request of each build, its ratio to the bare proxy's, and B / A. A build is a copy of
// apps/server/dist kept inside the repository (so that its imports resolve), e.g. apps/server/.ab/before.
// node apps/bench/profile/relay-ab.mjs <dirA> <dirB> [rounds=3] [seconds=4] [json|stream|both]
// A knock-out by configuration: two copies of one build, and B's config changed by AB_CONFIG_B
// (JSON merged into its config file, e.g. '{"logLevel":"warn"}'); AB_FLAGS gives both sides Node
// flags, AB_FLAGS_B B's own.

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
const B = fileURLToPath(new URL('../src', import.meta.url));
const { procCpuSeconds, startChild } = await import(`${B}/lib/child.mjs`);
const { requestObject } = await import(`${B}/lib/fixtures.mjs`);
const { pinned } = await import(`${B}/lib/options.mjs`);
const { startLoad } = await import(`${B}/lib/servers.mjs`);
const [a, b, roundsArg = '3', secondsArg = '4', which = 'both'] = process.argv.slice(2);
const rounds = Number(roundsArg), seconds = Number(secondsArg);
async function startReady(name, upstreamPort, { configChange = {}, flagsVariable = 'AB_FLAGS' } = {}) {
  const cli = resolve(name, 'cli.js');
  const directory = mkdtempSync(join(tmpdir(), `relay-ab-${basename(name)}-`));
  const config = { host: '127.0.0.1', port: 0, logLevel: 'info', dataDir: join(directory, 'data'), models: { 'quantum-flash': { engine: 'upstream', baseUrl: `http://127.0.0.1:${upstreamPort}/v1`, model: 'mock-model' } }, ...configChange };
  const configPath = join(directory, 'c.json');
  writeFileSync(configPath, JSON.stringify(config));
  const run = (args) => execFileSync(process.execPath, [cli, ...args], { cwd: directory, encoding: 'utf8' });
  const key = run(['keys', 'create', '--org', 'bench', '--plan', 'elite', '--kind', 'live', '--config', configPath]).trim().split('\n').at(-1).trim();
  run(['orgs', 'set-limits', 'bench', '--requests-per-minute', 'none', '--tokens-per-minute', 'none', '--tokens-per-day', 'none', '--config', configPath]);
  const logPath = join(directory, 'server.log');
  const log = openSync(logPath, 'w');
  const flags = process.env[flagsVariable]?.split(' ').filter(Boolean) ?? [];
  const { command, args } = pinned('server', process.execPath, [...flags, cli, 'serve', '--config', configPath]);
  const child = spawn(command, args, { cwd: directory, stdio: ['ignore', log, log] });
  let port;
  for (let i = 0; i < 300 && port === undefined; i++) { await sleep(100); port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(logPath, 'utf8'))?.[1]; }
  return { name, pid: child.pid, port: Number(port), key, logPath, directory, async stop() { child.kill('SIGINT'); await Promise.race([new Promise((r) => child.once('exit', r)), sleep(15000)]); if (child.exitCode === null) child.kill('SIGKILL'); } };
}
const upstream = await startChild(`${B}/servers/upstream-mock.mjs`, { role: 'load' });
const bare = await startChild(`${B}/servers/bare-proxy.mjs`, { role: 'server', args: [String(upstream.ready.port)], stdout: 'ignore' });
const servers = { [a]: await startReady(a, upstream.ready.port), [b]: await startReady(b, upstream.ready.port, { configChange: JSON.parse(process.env.AB_CONFIG_B ?? '{}'), flagsVariable: process.env.AB_FLAGS_B === undefined ? 'AB_FLAGS' : 'AB_FLAGS_B' }), bare: { pid: bare.pid, port: bare.ready.port, key: 'upstream' } };
const load = await startLoad();
const bodies = { json: JSON.stringify({ ...requestObject, max_tokens: 62, stream: false }), stream: JSON.stringify({ ...requestObject, max_tokens: 20, stream: true }) };
async function measure(side, body, secs) {
  const s = servers[side];
  const before = procCpuSeconds(s.pid);
  const r = await load.call('autocannon', { url: `http://127.0.0.1:${s.port}/v1/chat/completions`, body, headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` }, connections: 32, seconds: secs });
  const cpu = procCpuSeconds(s.pid) - before;
  if (r.non2xx || r.errors) throw new Error(`${side}: ${r.non2xx} non-2xx ${r.errors} errors`);
  return { rps: r.requests / r.seconds, us: (cpu / r.requests) * 1e6, busy: cpu / r.seconds };
}
const med = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const sides = [a, b, 'bare'];
for (const w of which === 'both' ? ['json', 'stream'] : [which]) {
  for (const side of sides) await measure(side, bodies[w], 5);
  const res = Object.fromEntries(sides.map((s) => [s, []]));
  for (let r = 0; r < rounds; r++) for (const side of r % 2 ? [...sides].reverse() : sides) res[side].push(await measure(side, bodies[w], seconds));
  const line = sides.map((s) => `${s}: ${Math.round(med(res[s].map((x) => x.rps)))} req/s ${med(res[s].map((x) => x.us)).toFixed(1)} µs/req (busy ${Math.round(100 * med(res[s].map((x) => x.busy)))}%)`).join(' | ');
  const ratio = (s) => med(res[s].map((x, i) => res.bare[i].us / x.us)).toFixed(3);
  console.log(`${w}: ${line}\n  per-CPU ratio vs bare: ${a} ${ratio(a)}, ${b} ${ratio(b)}; ${b}/${a} CPU per req: ${med(res[b].map((x, i) => x.us / res[a][i].us)).toFixed(3)}  [${res[a].map((x)=>x.us.toFixed(0))}] [${res[b].map((x)=>x.us.toFixed(0))}] [${res.bare.map((x)=>x.us.toFixed(0))}]`);
}
await load.stop();
for (const s of [a, b]) { await servers[s].stop(); rmSync(servers[s].directory, { recursive: true, force: true }); }
await bare.stop?.(); await upstream.stop();
console.log(`loadavg ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
