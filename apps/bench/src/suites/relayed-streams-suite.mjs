// Idle relayed streams at scale: N streams (10,000 by default) opened through the ready server
// and, as the same-run baseline, through the bare proxy, to a stand-in upstream that answers
// their headers and holds their first token; then released (each runs its 20 chunks and ends)
// and closed. Memory of the server process after a GC: before, with the N held (per stream),
// and after they all ended (is it back where it started?).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.mjs';
import { requestObject } from '../lib/fixtures.mjs';
import { memoryProbeFlags, probeMemory, raiseOpenFiles } from '../lib/memory.mjs';
import { startReadyServer } from './relay-suite.mjs';

const mockScript = fileURLToPath(new URL('../servers/upstream-mock.mjs', import.meta.url));
const bareProxyScript = fileURLToPath(new URL('../servers/bare-proxy.mjs', import.meta.url));

/** The issue's target: RSS per idle open stream through the ready server. */
const rssPerStreamTarget = 14 * 1024;
const warmupStreams = 200;
const body = JSON.stringify({ ...requestObject, max_tokens: 20, stream: true });

function rawRequest(port, authorization) {
  const headers = { host: `127.0.0.1:${port}`, 'content-type': 'application/json', authorization, 'content-length': Buffer.byteLength(body) };
  return `POST /v1/chat/completions HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`;
}

async function until(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await check();
    if (last.done) return last;
    await sleep(100);
  }
  throw new Error(`${what}: timed out (${JSON.stringify(last)})`);
}

/** One side in fresh processes: the server and a holding stand-in; memory before, held, after. */
async function measureSide(side, { load, count, localAddress, log }) {
  const directory = mkdtempSync(join(tmpdir(), `quantum-bench-relayed-${side}-`));
  const probeFile = join(directory, 'memory.json');
  const files = 2 * count + 1024;
  const upstream = await startChild(mockScript, { role: 'load', args: ['--hold'] });
  raiseOpenFiles(upstream.pid, files);
  const env = { BENCH_MEMORY_PROBE_FILE: probeFile };
  const server =
    side === 'ready'
      ? // Held streams wait for their first token longer than the default minute.
        await startReadyServer(upstream.ready.port, directory, { nodeFlags: memoryProbeFlags, env, model: { firstTokenTimeoutMs: 600_000 } })
      : await startChild(bareProxyScript, { role: 'server', args: [String(upstream.ready.port)], nodeFlags: memoryProbeFlags, env: { ...env, BARE_PROXY_CONNECTIONS: '0' }, stdout: 'ignore' });
  const port = side === 'ready' ? server.port : server.ready.port;
  const request = rawRequest(port, side === 'ready' ? `Bearer ${server.key}` : 'Bearer upstream');
  const openFiles = raiseOpenFiles(server.pid, files);
  try {
    if (openFiles < files) throw new Error(`${side}: the server may open ${openFiles} files, ${files} needed (run as root, or lower BENCH_RELAYED_STREAMS)`);
    // Hold N streams, release them, let every one end, close the clients.
    const cycle = async (streams, whileHeld) => {
      const opened = await load.call('idleOpen', { port, request, count: streams, localAddress });
      if (opened.failures > 0) throw new Error(`${side}: ${opened.failures} connections failed`);
      const started = Date.now();
      await until(`${side}: ${streams} streams held at the stand-in`, async () => {
        const held = await upstream.call('held');
        return { held, done: held >= streams };
      }, 90_000);
      const openSeconds = (Date.now() - started) / 1000;
      const heldMemory = await whileHeld?.();
      await upstream.call('release');
      await until(`${side}: ${streams} streams ended`, async () => {
        const { finished } = await load.call('idleFinished');
        return { finished, done: finished >= streams };
      }, 90_000);
      await load.call('idleClose');
      return { openSeconds, heldMemory };
    };
    // Warm-up: the code of a stream and its end, and the pools, so that `before` holds them.
    await cycle(warmupStreams);
    await sleep(1000);
    const before = await probeMemory(server.pid, probeFile);
    const { openSeconds, heldMemory: held } = await cycle(count, () => probeMemory(server.pid, probeFile));
    // Sockets closing and the ledger's last writes: a moment, then what is left.
    await sleep(2000);
    const after = await probeMemory(server.pid, probeFile);
    const heapOf = (memory) => memory.heapUsed + memory.external;
    const result = {
      side,
      count,
      openSeconds,
      rssPerStream: (held.rss - before.rss) / count,
      heapPerStream: (heapOf(held) - heapOf(before)) / count,
      rssMiB: { before: before.rss / 2 ** 20, held: held.rss / 2 ** 20, after: after.rss / 2 ** 20 },
      heapMiB: { before: heapOf(before) / 2 ** 20, held: heapOf(held) / 2 ** 20, after: heapOf(after) / 2 ** 20 },
    };
    log(
      `  relayed ${side}: ${count} held (opened in ${openSeconds.toFixed(1)} s): ${(result.rssPerStream / 1024).toFixed(1)} KiB RSS, ${(result.heapPerStream / 1024).toFixed(1)} KiB heap per stream; ` +
        `RSS ${result.rssMiB.before.toFixed(1)} → ${result.rssMiB.held.toFixed(1)} → ${result.rssMiB.after.toFixed(1)} MiB, heap ${result.heapMiB.before.toFixed(1)} → ${result.heapMiB.held.toFixed(1)} → ${result.heapMiB.after.toFixed(1)} MiB (before → held → after)`,
    );
    return result;
  } finally {
    await load.call('idleClose');
    await server.stop();
    await upstream.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

let measurements = 0;

/** Each side in fresh processes, rounds in alternating order; every figure per round. */
export async function runRelayedStreamsSuite({ load, quick, log }) {
  const count = quick ? 500 : Number(process.env.BENCH_RELAYED_STREAMS ?? 10_000);
  const rounds = quick ? 1 : Number(process.env.BENCH_RELAYED_ROUNDS ?? 1);
  raiseOpenFiles(load.pid, 2 * count + 1024);
  const samples = { bare: [], ready: [] };
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? ['bare', 'ready'] : ['ready', 'bare']) {
      // A source address of its own per side (127.0.0.0/8 is all loopback): no TIME_WAIT ports reused.
      const localAddress = `127.0.1.${1 + (measurements++ % 250)}`;
      samples[side].push(await measureSide(side, { load, count, localAddress, log }));
    }
  }
  const ratios = samples.ready.map((ready, round) => ready.rssPerStream / samples.bare[round].rssPerStream);
  log(`Relayed streams: ready / bare RSS per held stream ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
  return { count, rounds, target: rssPerStreamTarget, samples, ratios };
}
