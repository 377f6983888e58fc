// The upstream relay: the ready server (apps/server) with the upstream engine in front of a
// stand-in upstream, against calling that upstream directly. Latency at a fixed request rate,
// and the chunk rate of long streams.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { procCpuSeconds, startChild } from '../lib/child.mjs';
import { listeningPort, stopServer } from '../lib/cli-server.mjs';
import { requestObject } from '../lib/fixtures.mjs';
import { pinned } from '../lib/options.mjs';
import { runPaired } from '../lib/paired.mjs';

const cli = fileURLToPath(new URL('../../../server/dist/cli.js', import.meta.url));
const mockScript = fileURLToPath(new URL('../servers/upstream-mock.mjs', import.meta.url));

function runCli(args, cwd) {
  return execFileSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Starts the ready server pinned to the server core, with a live key of an unlimited org.
 * `nodeFlags` and `env` go to its process (beside BENCH_RELAY_NODE_FLAGS), `model` into its
 * upstream model's config (e.g. a longer `firstTokenTimeoutMs` for held streams), `settings` into
 * the config file (e.g. `overload: false`).
 */
export async function startReadyServer(upstreamPort, directory, { nodeFlags = [], env = {}, model = {}, settings = {} } = {}) {
  const config = {
    ...settings,
    host: '127.0.0.1',
    port: 0,
    logLevel: settings.logLevel ?? 'info',
    dataDir: join(directory, 'data'),
    models: { 'quantum-flash': { engine: 'upstream', baseUrl: `http://127.0.0.1:${upstreamPort}/v1`, model: 'mock-model', ...model } },
  };
  const configPath = join(directory, 'quantum-chat.config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const key = runCli(['keys', 'create', '--org', 'bench', '--plan', 'elite', '--kind', 'live', '--config', configPath], directory).trim().split('\n').at(-1).trim();
  runCli(['orgs', 'set-limits', 'bench', '--requests-per-minute', 'none', '--tokens-per-minute', 'none', '--tokens-per-day', 'none', '--config', configPath], directory);
  // Logs (one JSON line per request, as in production) go to a file, not through a pipe.
  const logPath = join(directory, 'server.log');
  const log = openSync(logPath, 'w');
  // BENCH_RELAY_NODE_FLAGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the ready server.
  const flags = process.env.BENCH_RELAY_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const { command, args } = pinned('server', process.execPath, [...flags, ...nodeFlags, cli, 'serve', '--config', configPath]);
  const child = spawn(command, args, { cwd: directory, stdio: ['ignore', log, log], env: { ...process.env, ...env } });
  const port = await listeningPort(child, logPath);
  return { pid: child.pid, port, key, stop: () => stopServer(child) };
}

const bareProxyScript = fileURLToPath(new URL('../servers/bare-proxy.mjs', import.meta.url));

/**
 * Starts the bare proxy (the relay's baseline) pinned to the server core, in the shape
 * `startReadyServer` answers: its key is the one the stand-in accepts.
 */
export async function startBareProxy(upstreamPort, { nodeFlags = [], stdout = 'ignore' } = {}) {
  const child = await startChild(bareProxyScript, { role: 'server', args: [String(upstreamPort)], nodeFlags, stdout });
  return { pid: child.pid, port: child.ready.port, key: 'upstream', stop: () => child.stop() };
}

/** The bare proxy (`side` 'bare') or the ready server, for scripts that compare the two; each takes the options it knows. */
export function startRelaySide(side, upstreamPort, directory, options = {}) {
  return side === 'bare' ? startBareProxy(upstreamPort, options) : startReadyServer(upstreamPort, directory, options);
}

export async function runRelaySuite({ load, protocol, quick, log }) {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-bench-relay-'));
  const upstream = await startChild(mockScript, { role: 'load' });
  const upstreamPort = upstream.ready.port;
  const relay = await startReadyServer(upstreamPort, directory);
  // Well below the ready server's capacity on one core of this machine, so that latency is not queueing.
  const rate = Number(process.env.BENCH_RELAY_RATE ?? (quick ? 20 : 30));
  const shortChunks = 20;
  const longChunks = quick ? 200 : 2000;
  try {
    const targets = {
      direct: { host: '127.0.0.1', port: upstreamPort, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: 'Bearer upstream' } },
      relay: { host: '127.0.0.1', port: relay.port, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: `Bearer ${relay.key}` } },
    };
    const bodyOf = (chunks) => JSON.stringify({ ...requestObject, stream: true, max_tokens: chunks });
    const sides = { baseline: 'direct', candidate: 'relay' };
    // A check: the relay answers a live-key stream from the upstream, all of it.
    const check = await load.call('streams', { target: targets.relay, body: bodyOf(shortChunks), concurrency: 1, seconds: 0.2 });
    if (check.failures > 0 || check.streams === 0) throw new Error(`the relay failed: ${JSON.stringify(check)}`);

    // JIT warm-up, back to back. The latency pairs below send ~1,000 requests in all at 30 req/s, and
    // V8 optimizes a function that runs once per request only after a few thousand calls: without
    // this, the relay's per-request path (Fastify, the core, undici, pino, SQLite) still runs as
    // baseline code through most of the pairs, about twice the CPU of its steady state, which a
    // server in production left long ago. Both sides get it; the mock's path is tiny.
    const warmupSeconds = quick ? 1 : 15;
    for (const side of ['relay', 'direct']) {
      const warmup = await load.call('streams', { target: targets[side], body: bodyOf(shortChunks), concurrency: 4, seconds: warmupSeconds });
      if (warmup.failures > 0) throw new Error(`${side}: ${warmup.failures} failed warm-up streams`);
      log(`Relay: JIT warm-up of ${side}: ${warmup.streams} requests back to back in ${warmupSeconds} s`);
    }

    log(`Relay: latency at ${rate} req/s, ${shortChunks}-chunk streams, direct vs through the ready server`);
    const latency = await runPaired({
      label: 'relay-latency',
      protocol,
      log,
      measure: async (side, seconds) => {
        const cpuBefore = procCpuSeconds(relay.pid);
        const result = await load.call('fixedRate', { target: targets[sides[side]], body: bodyOf(shortChunks), rate, seconds });
        const relayCpu = procCpuSeconds(relay.pid) - cpuBefore;
        if (result.failures > 0) throw new Error(`${sides[side]}: ${result.failures} failed requests`);
        return {
          firstChunkP50Ms: result.firstP50,
          firstChunkP99Ms: result.firstP99,
          totalP50Ms: result.totalP50,
          totalP99Ms: result.totalP99,
          achievedRate: result.requests / result.seconds,
          relayCpuShare: relayCpu / result.seconds,
        };
      },
    });

    log(`Relay: chunk rate of ${longChunks}-chunk streams, 4 at a time, direct vs through the ready server`);
    const chunkRate = await runPaired({
      label: 'relay-chunks',
      protocol,
      log,
      measure: async (side, seconds) => {
        const cpuBefore = procCpuSeconds(relay.pid);
        const result = await load.call('streams', { target: targets[sides[side]], body: bodyOf(longChunks), concurrency: 4, seconds });
        const relayCpu = procCpuSeconds(relay.pid) - cpuBefore;
        if (result.failures > 0) throw new Error(`${sides[side]}: ${result.failures} failed streams`);
        return { chunksPerSec: result.frames / result.seconds, streamsPerSec: result.streams / result.seconds, relayCpuShare: relayCpu / result.seconds };
      },
    });
    return { rate, shortChunks, longChunks, latency, chunkRate };
  } finally {
    await relay.stop();
    await upstream.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
