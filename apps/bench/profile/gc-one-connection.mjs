// The ready server's young-generation collections at one connection (the concurrency suite's
// tail case: one JSON request at a time through a live key to the stand-in upstream), under
// `--trace-gc-nvp`: scavenges per second, their pauses, and bytes promoted to the old
// generation per request, beside the p50 and p99 of the same run.
// node apps/bench/profile/gc-one-connection.mjs [seconds=6] [extra node flags for the server…]
// BENCH_GC_SETTINGS='{"metrics":false}': more of the ready server's config file (to bisect).
// BENCH_GC_SIDE=bare: the bare proxy (the gateway-cost baseline) instead of the ready server.
// BENCH_GC_PRELOAD=<file.cjs> adds `--require` of it; SIGUSR2 is sent to the server at the
// start and the end of the measured window (e.g. a sampling heap profiler's start and stop), or
// with BENCH_GC_SIGNAL=mid once in its middle (e.g. a heap snapshot under load).
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChild } from '../src/lib/child.mjs';
import { gcFigure, majorGcLines, scavengeLines } from '../src/lib/gc-trace.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
import { startLoad } from '../src/lib/servers.mjs';
import { startBareProxy, startReadyServer } from '../src/suites/relay-suite.mjs';

const seconds = Number(process.argv[2] ?? 6);
const extraFlags = process.argv.slice(3);
const preload = process.env.BENCH_GC_PRELOAD;
const directory = mkdtempSync(join(tmpdir(), 'quantum-gc-one-'));
const upstream = await startChild(fileURLToPath(new URL('../src/servers/upstream-mock.mjs', import.meta.url)), { role: 'load' });
const nodeFlags = ['--trace-gc-nvp', ...extraFlags, ...(preload ? ['--require', preload] : [])];
const bare = process.env.BENCH_GC_SIDE === 'bare';
const ready = bare
  ? await startBareProxy(upstream.ready.port, { nodeFlags, stdout: openSync(join(directory, 'server.log'), 'w') })
  : await startReadyServer(upstream.ready.port, directory, { nodeFlags, settings: { overload: false, ...JSON.parse(process.env.BENCH_GC_SETTINGS ?? '{}') } });
const load = await startLoad();
const target = { host: '127.0.0.1', port: ready.port, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: `Bearer ${ready.key}` } };
const body = JSON.stringify({ ...requestObject, max_tokens: 62, stream: false });
try {
  await load.call('firstChunk', { target, body, seconds: 3 }); // warm-up
  await sleep(200);
  const logPath = join(directory, 'server.log');
  const before = readFileSync(logPath, 'utf8').length;
  const signalAtEnds = preload && process.env.BENCH_GC_SIGNAL !== 'mid';
  if (signalAtEnds) process.kill(ready.pid, 'SIGUSR2');
  const mid = preload && !signalAtEnds ? setTimeout(() => process.kill(ready.pid, 'SIGUSR2'), (seconds * 1000) / 2) : undefined;
  const result = await load.call('firstChunk', { target, body, seconds });
  clearTimeout(mid);
  if (signalAtEnds) process.kill(ready.pid, 'SIGUSR2');
  await sleep(500);
  const lines = readFileSync(logPath, 'utf8').slice(before).split('\n');
  const scavenges = scavengeLines(lines).map((line) => ({
    pause: gcFigure(line, 'pause'),
    promoted: gcFigure(line, 'promoted'),
    survived: gcFigure(line, 'new_space_survived'),
    allocated: gcFigure(line, 'allocated'),
    roots: gcFigure(line, 'scavenge\\.roots'),
    parallel: gcFigure(line, 'scavenge\\.parallel'),
  }));
  // BENCH_GC_SEQUENCE=1: each collection in order (kind, pause, promoted KiB), to see promotion around major GCs.
  if (process.env.BENCH_GC_SEQUENCE === '1') {
    console.log(lines.filter((line) => / gc=/.test(line)).map((line) => `${/ gc=(\w+)/.exec(line)[1]} ${gcFigure(line, 'pause')}ms ${Math.round(gcFigure(line, 'promoted') / 1024)}K`).join(' | '));
  }
  const majors = majorGcLines(lines).length;
  const sum = (values) => values.reduce((total, value) => total + value, 0);
  const pauses = scavenges.map((gc) => gc.pause).sort((a, b) => a - b);
  const medianOf = (key) => scavenges.map((gc) => gc[key]).sort((a, b) => a - b)[scavenges.length >> 1] ?? 0;
  console.log(`${result.count} requests in ${seconds} s, p50 ${result.p50.toFixed(3)} ms, p90 ${result.p90.toFixed(3)} ms, p99 ${result.p99.toFixed(3)} ms, p99.9 ${result.p999.toFixed(3)} ms, max ${result.max.toFixed(3)} ms, failures ${result.failures}`);
  console.log(
    `${scavenges.length} scavenges (${(scavenges.length / seconds).toFixed(1)}/s, one per ${(result.count / Math.max(1, scavenges.length)).toFixed(0)} requests), ` +
      `pause median ${pauses[pauses.length >> 1]?.toFixed(2)} ms max ${pauses.at(-1)?.toFixed(2)} ms; ` +
      `(roots ${medianOf('roots').toFixed(2)}, copying ${medianOf('parallel').toFixed(2)}); allocated ${(sum(scavenges.map((gc) => gc.allocated)) / result.count).toFixed(0)} B/request, ` +
      `promoted ${(sum(scavenges.map((gc) => gc.promoted)) / result.count).toFixed(0)} B/request (${(medianOf('promoted') / 1024).toFixed(0)} KiB per scavenge), ` +
      `kept in the young generation ${(medianOf('survived') / 1024).toFixed(0)} KiB per scavenge; ${majors} major GCs`,
  );
} finally {
  await load.stop();
  await ready.stop();
  await upstream.stop();
  rmSync(directory, { recursive: true, force: true });
}
