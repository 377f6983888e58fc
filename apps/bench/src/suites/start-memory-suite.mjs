// Memory at start: the ready server (`cli.js serve` on its embedded defaults, in an empty
// directory: SQLite store, the reference engine for every model) against, in the same run, the
// bare proxy (Fastify + undici) and an idle `node` process (the runtime's own floor). RSS once
// listening (2 s, the start's own work done), again once idle long enough for V8 to give back
// what start-up's allocation grew (30 s), the heap after a GC, and the ready server's RSS after
// its first answer (what loads on first use). BENCH_START_BASELINE_CLI=<another build's cli.js>
// adds that build as a side (the server before a change, say).
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { procRssBytes, startChild } from '../lib/child.mjs';
import { listeningPort, stopServer } from '../lib/cli-server.mjs';
import { memoryProbeFlags, probeMemory } from '../lib/memory.mjs';
import { pinned } from '../lib/options.mjs';
import { median, range } from '../lib/stats.mjs';

const cli = fileURLToPath(new URL('../../../server/dist/cli.js', import.meta.url));
const bareProxyScript = fileURLToPath(new URL('../servers/bare-proxy.mjs', import.meta.url));
/** The issue's target: about half of the ~170 MB the ready server started at. */
const startRssTargetMiB = 85;
/** Long enough after "listening" for the first start's work (the store, the starter key) to be done. */
const settleMs = 2000;
/**
 * Long enough after "listening" for V8's memory reducer to have run: start-up allocates about
 * 30 MiB (module loading, schemas), which grows the young generation to its 16 MiB semi-spaces,
 * and V8 gives that back only once the process has allocated little for 8 s after its last full
 * collection (the ready server's second try, at about 16 s, is the one that finds it idle).
 */
const idleMs = 30_000;

/** RSS `settleMs` and `idleMs` from now (just after the process listens). */
async function rssAtStartAndIdle(pid) {
  const listeningAt = performance.now();
  await sleep(settleMs - (performance.now() - listeningAt));
  const rss = procRssBytes(pid);
  await sleep(idleMs - (performance.now() - listeningAt));
  return { rss, rssIdle: procRssBytes(pid) };
}

/** `cli.js serve` in an empty directory; resolves once it listens, with its port and starter key. */
async function startCli(cliPath, directory, probeFile) {
  const logPath = join(directory, 'server.log');
  const errPath = join(directory, 'server.err');
  const { command, args } = pinned('server', process.execPath, [...memoryProbeFlags, cliPath, 'serve', '--port', '0']);
  // No config, no QUANTUM_CHAT_* or HOST/PORT from this shell: the embedded defaults.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(QUANTUM_CHAT_|HOST$|PORT$|REDIS_URL$|OTEL_)/.test(name)));
  const child = spawn(command, args, { cwd: directory, stdio: ['ignore', openSync(logPath, 'w'), openSync(errPath, 'w')], env: { ...env, BENCH_MEMORY_PROBE_FILE: probeFile } });
  const port = await listeningPort(child, logPath, errPath);
  const key = /qc_test_[A-Za-z0-9]+/.exec(readFileSync(errPath, 'utf8'))?.[0];
  return { pid: child.pid, port, key, stop: () => stopServer(child) };
}

/** One chat completion with the starter (test) key: the reference engine answers it. */
async function firstAnswer(port, key) {
  const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'What is 2 + 2?' }] }),
  });
  if (response.status !== 200) throw new Error(`first answer: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

async function measureCli(cliPath) {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-bench-start-'));
  const probeFile = join(directory, 'memory.json');
  const server = await startCli(cliPath, directory, probeFile);
  try {
    const { rss, rssIdle } = await rssAtStartAndIdle(server.pid);
    const collected = await probeMemory(server.pid, probeFile);
    const asked = performance.now();
    await firstAnswer(server.port, server.key);
    const firstAnswerMs = performance.now() - asked;
    await sleep(500);
    return { rss, rssIdle, heapUsed: collected.heapUsed, heapTotal: collected.heapTotal, rssAfterFirstAnswer: procRssBytes(server.pid), firstAnswerMs };
  } finally {
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function measureChild(script, args, env = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-bench-start-'));
  const probeFile = join(directory, 'memory.json');
  const child = await startChild(script, { role: 'server', args, nodeFlags: memoryProbeFlags, env: { ...env, BENCH_MEMORY_PROBE_FILE: probeFile }, stdout: 'ignore' });
  try {
    const { rss, rssIdle } = await rssAtStartAndIdle(child.pid);
    const collected = await probeMemory(child.pid, probeFile);
    return { rss, rssIdle, heapUsed: collected.heapUsed, heapTotal: collected.heapTotal };
  } finally {
    await child.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** An idle node process that answers the parent (the runtime's floor, with the same IPC channel). */
const idleNodeScript = fileURLToPath(new URL('../servers/idle-node.mjs', import.meta.url));

export async function runStartMemorySuite({ quick, log }) {
  const rounds = quick ? 1 : Number(process.env.BENCH_START_ROUNDS ?? 3);
  const baselineCli = process.env.BENCH_START_BASELINE_CLI;
  const sides = {
    node: () => measureChild(idleNodeScript, []),
    // The bare proxy connects to its upstream only when asked: no upstream is needed to start it.
    bare: () => measureChild(bareProxyScript, ['9']),
    ready: () => measureCli(cli),
    ...(baselineCli !== undefined ? { baseline: () => measureCli(baselineCli) } : {}),
  };
  const names = Object.keys(sides);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const sample = await sides[name]();
      samples[name].push(sample);
      const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
      log(`  start ${name}: RSS ${mib(sample.rss)} MiB, ${mib(sample.rssIdle)} once idle, heap ${mib(sample.heapUsed)} used / ${mib(sample.heapTotal)} MiB after a GC${sample.rssAfterFirstAnswer ? `; first answer in ${sample.firstAnswerMs.toFixed(0)} ms, RSS after it ${mib(sample.rssAfterFirstAnswer)} MiB` : ''}`);
    }
  }
  const rssMiB = Object.fromEntries(names.map((name) => [name, samples[name].map((sample) => sample.rss / 2 ** 20)]));
  const readyOverBare = rssMiB.ready.map((ready, round) => ready / rssMiB.bare[round]);
  const idleMiB = (name) => samples[name].map((sample) => sample.rssIdle / 2 ** 20);
  const readyOverBaseline = rssMiB.baseline?.map((baseline, round) => rssMiB.ready[round] / baseline);
  log(
    `Start memory: ready ${median(rssMiB.ready).toFixed(1)} MiB (${range(rssMiB.ready).map((value) => value.toFixed(1)).join('–')}), bare proxy ${median(rssMiB.bare).toFixed(1)}, idle node ${median(rssMiB.node).toFixed(1)}; ready / bare ${median(readyOverBare).toFixed(2)}; once idle ready ${median(idleMiB('ready')).toFixed(1)}, bare ${median(idleMiB('bare')).toFixed(1)}` +
      (readyOverBaseline ? `; baseline build ${median(rssMiB.baseline).toFixed(1)} MiB, ready / baseline ${median(readyOverBaseline).toFixed(2)}` : ''),
  );
  return { rounds, targetMiB: startRssTargetMiB, samples, readyOverBare, readyOverBaseline };
}
