// The ready server relaying to the stand-in upstream, under --cpu-prof: a back-to-back JIT
// warm-up, then a measured run; prints where its CPU time went, per request and by package.
// node apps/bench/profile/profile-relay.mjs [warmupSeconds=15] [seconds=30] [rate=30] [chunks=20] [paced|streams]
// `paced`: `rate` requests per second (the latency run); `streams`: 4 streams at a time back to back (the chunk-rate run).
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startChild } from '../src/lib/child.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
import { startLoad } from '../src/lib/servers.mjs';
import { startReadyServer } from '../src/suites/relay-suite.mjs';

const [warmupSeconds = 15, pacedSeconds = 30, rate = 30, chunks = 20] = process.argv.slice(2, 6).map(Number);
const mode = process.argv[6] ?? 'paced';
const profileDir = mkdtempSync(join(tmpdir(), 'quantum-relay-prof-'));
mkdirSync(profileDir, { recursive: true });
process.env.BENCH_RELAY_NODE_FLAGS = `--cpu-prof --cpu-prof-dir=${profileDir}`;
const directory = mkdtempSync(join(tmpdir(), 'quantum-relay-profile-'));
const upstream = await startChild(fileURLToPath(new URL('../src/servers/upstream-mock.mjs', import.meta.url)), { role: 'load' });
const relay = await startReadyServer(upstream.ready.port, directory);
const load = await startLoad();
const target = { host: '127.0.0.1', port: relay.port, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: `Bearer ${relay.key}` } };
const body = JSON.stringify({ ...requestObject, stream: true, max_tokens: chunks });
const warm = await load.call('streams', { target, body, concurrency: 4, seconds: warmupSeconds });
const pacedFrom = Date.now();
const measured =
  mode === 'streams'
    ? await load.call('streams', { target, body, concurrency: 4, seconds: pacedSeconds })
    : await load.call('fixedRate', { target, body, rate, seconds: pacedSeconds });
const paced = { ...measured, requests: measured.requests ?? measured.streams };
console.log(`warm-up: ${warm.streams} streams; ${mode}: ${paced.requests} requests, first chunk p50 ${paced.firstP50} ms, p99 ${paced.firstP99} ms`);
await load.stop();
await relay.stop();
const stoppedAt = Date.now();
await upstream.stop();
const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
// Only the paced run's samples: the summariser reads a profile cut to them.
const summarizer = fileURLToPath(new URL('./summarize-profile.mjs', import.meta.url));
console.log(execFileSync(process.execPath, [summarizer, join(profileDir, file), '45', String(paced.requests), String(pacedFrom), String(stoppedAt)], { encoding: 'utf8' }));
const grouper = fileURLToPath(new URL('./group-profile.mjs', import.meta.url));
console.log(execFileSync(process.execPath, [grouper, join(profileDir, file), String(paced.requests), String(pacedFrom), String(stoppedAt)], { encoding: 'utf8' }));
console.log(`profile: ${join(profileDir, file)}`);
rmSync(directory, { recursive: true, force: true });
