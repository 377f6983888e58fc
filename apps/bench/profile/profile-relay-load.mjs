// The ready server relaying to the stand-in upstream under the bare-proxy suite's closed-loop
// load (autocannon, 32 connections), with --cpu-prof: a warm-up, then a measured run; prints
// where its CPU time went per request, by function and by package, warm-up left out.
// node apps/bench/profile/profile-relay-load.mjs [json|stream] [warmupSeconds=5] [seconds=10]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { procCpuSeconds, startChild } from '../src/lib/child.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
import { startLoad } from '../src/lib/servers.mjs';
import { startReadyServer } from '../src/suites/relay-suite.mjs';

const workload = process.argv[2] ?? 'json';
const [warmupSeconds = 5, seconds = 10] = process.argv.slice(3, 5).map(Number);
const profileDir = mkdtempSync(join(tmpdir(), 'quantum-relay-load-prof-'));
process.env.BENCH_RELAY_NODE_FLAGS = `--cpu-prof --cpu-prof-dir=${profileDir}`;
const directory = mkdtempSync(join(tmpdir(), 'quantum-relay-load-profile-'));
const upstream = await startChild(fileURLToPath(new URL('../src/servers/upstream-mock.mjs', import.meta.url)), { role: 'load' });
const relay = await startReadyServer(upstream.ready.port, directory);
const load = await startLoad();
// The bare-proxy suite's bodies: a 700-byte chat completion, or a 20-chunk stream.
const body = JSON.stringify({ ...requestObject, ...(workload === 'stream' ? { max_tokens: 20, stream: true } : { max_tokens: 62, stream: false }) });
const headers = { 'content-type': 'application/json', authorization: `Bearer ${relay.key}` };
const run = (duration) => load.call('autocannon', { url: `http://127.0.0.1:${relay.port}/v1/chat/completions`, body, headers, connections: 32, seconds: duration });
await run(warmupSeconds);
const from = Date.now();
const cpuBefore = procCpuSeconds(relay.pid);
const result = await run(seconds);
const cpu = procCpuSeconds(relay.pid) - cpuBefore;
console.log(`${workload}: ${result.requests} requests in ${result.seconds} s (${Math.round(result.requests / result.seconds)} req/s), ${result.non2xx} non-2xx; server CPU ${((cpu * 1e6) / result.requests).toFixed(1)} µs per request`);
await load.stop();
await relay.stop();
const ended = Date.now();
await upstream.stop();
const file = join(profileDir, readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile')));
const script = (name) => fileURLToPath(new URL(name, import.meta.url));
console.log(execFileSync(process.execPath, [script('./summarize-profile.mjs'), file, '45', String(result.requests), String(from), String(ended)], { encoding: 'utf8' }));
console.log(execFileSync(process.execPath, [script('./group-profile.mjs'), file, String(result.requests), String(from), String(ended)], { encoding: 'utf8' }));
console.log(`profile: ${file}`);
rmSync(directory, { recursive: true, force: true });
