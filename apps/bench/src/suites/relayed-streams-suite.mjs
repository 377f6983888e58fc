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
/** Streams opened at once: well under a listen backlog (511). */
const openBatch = 400;
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
        // Load shedding off: opening thousands on a busy core passes its event-loop-delay threshold, and a 503 holds nothing.
        await startReadyServer(upstream.ready.port, directory, { nodeFlags: memoryProbeFlags, env, model: { firstTokenTimeoutMs: 600_000 }, settings: { overload: false } })
      : await startChild(bareProxyScript, { role: 'server', args: [String(upstream.ready.port)], nodeFlags: memoryProbeFlags, env: { ...env, BARE_PROXY_CONNECTIONS: '0' }, stdout: 'ignore' });
  const port = side === 'ready' ? server.port : server.ready.port;
  const request = rawRequest(port, side === 'ready' ? `Bearer ${server.key}` : 'Bearer upstream');
  const openFiles = raiseOpenFiles(server.pid, files);
  try {
    if (openFiles < 2 * count + filesBesideStreams) throw new Error(`${side}: the server may open ${openFiles} files, ${2 * count + filesBesideStreams} needed`);
    // Hold N streams, release them, let every one end, close the clients.
    const cycle = async (streams, whileHeld) => {
      const started = Date.now();
      // In batches, each once the last reached the stand-in: at the pace the server takes them,
      // never past its accept backlog (a server that sends its headers with the first token
      // gives the client nothing else to wait for).
      for (let opened = 0; opened < streams; ) {
        const batch = Math.min(openBatch, streams - opened);
        const result = await load.call('idleOpen', { port, request, count: batch, localAddress, parallel: 64 });
        if (result.failures > 0) throw new Error(`${side}: ${result.failures} connections failed: ${JSON.stringify(result.errors)}`);
        opened += batch;
        await until(`${side}: ${opened} streams held at the stand-in`, async () => {
          const held = await upstream.call('held');
          return { held, done: held >= opened };
        }, 60_000);
      }
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
    // The proxies keep their upstream connections alive for the next requests (about a minute, the
    // stand-in's keep-alive): closed now, as the upstream's timeout would, what is left is the rest.
    await upstream.call('closeIdle');
    await until(`${side}: upstream connections closed`, async () => {
      const open = await upstream.call('open');
      return { open, done: open === 0 };
    }, 60_000);
    // The proxy sees its connections close as it gets to their events: until its heap holds still.
    let afterIdle = await probeMemory(server.pid, probeFile);
    for (let probe = 0; probe < 10; probe++) {
      await sleep(2000);
      const next = await probeMemory(server.pid, probeFile);
      const settled = Math.abs(next.heapUsed - afterIdle.heapUsed) < 2 ** 20;
      afterIdle = next;
      if (settled) break;
    }
    const heapOf = (memory) => memory.heapUsed + memory.external;
    const result = {
      side,
      count,
      openSeconds,
      rssPerStream: (held.rss - before.rss) / count,
      heapPerStream: (heapOf(held) - heapOf(before)) / count,
      rssMiB: { before: before.rss / 2 ** 20, held: held.rss / 2 ** 20, after: after.rss / 2 ** 20, afterIdle: afterIdle.rss / 2 ** 20 },
      heapMiB: { before: heapOf(before) / 2 ** 20, held: heapOf(held) / 2 ** 20, after: heapOf(after) / 2 ** 20, afterIdle: heapOf(afterIdle) / 2 ** 20 },
    };
    const path = (figures) => [figures.before, figures.held, figures.after, figures.afterIdle].map((value) => value.toFixed(1)).join(' → ');
    log(
      `  relayed ${side}: ${count} held (opened in ${openSeconds.toFixed(1)} s): ${(result.rssPerStream / 1024).toFixed(1)} KiB RSS, ${(result.heapPerStream / 1024).toFixed(1)} KiB heap per stream; ` +
        `RSS ${path(result.rssMiB)} MiB, heap ${path(result.heapMiB)} MiB (before → held → ended → upstream connections closed)`,
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

/** Files a server holds besides its two sockets per stream (the store, logs, listening socket, pipes). */
const filesBesideStreams = 200;

/**
 * The streams this machine allows: each holds two sockets in the server (the client's and
 * the upstream's), so 10,000 need an open-file limit of 20,200. Past the hard limit only root
 * (CAP_SYS_RESOURCE) can raise it; without, the suite holds as many as the limit allows and says so.
 */
function streamsAllowed(wanted) {
  const probe = raiseOpenFiles(process.pid, 2 * wanted + 1024);
  return Math.min(wanted, Math.floor((probe - filesBesideStreams) / 2));
}

/** Each side in fresh processes, rounds in alternating order; every figure per round. */
export async function runRelayedStreamsSuite({ load, quick, log }) {
  const wanted = quick ? 500 : Number(process.env.BENCH_RELAYED_STREAMS ?? 10_000);
  const count = streamsAllowed(wanted);
  if (count < wanted) log(`  relayed streams: ${count} instead of ${wanted}: the open-file limit (ulimit -n, hard) allows no more (two sockets per stream in the server; raise it as root)`);
  const rounds = quick ? 1 : Number(process.env.BENCH_RELAYED_ROUNDS ?? 1);
  raiseOpenFiles(load.pid, 2 * count + 1024);
  // BENCH_RELAYED_SIDES=ready: one side alone (a look at one server; no ratio then).
  const onlySides = (process.env.BENCH_RELAYED_SIDES ?? 'bare,ready').split(',');
  const samples = { bare: [], ready: [] };
  for (let round = 0; round < rounds; round++) {
    for (const side of (round % 2 === 0 ? ['bare', 'ready'] : ['ready', 'bare']).filter((name) => onlySides.includes(name))) {
      // A source address of its own per side (127.0.0.0/8 is all loopback): no TIME_WAIT ports reused.
      const localAddress = `127.0.1.${1 + (measurements++ % 250)}`;
      samples[side].push(await measureSide(side, { load, count, localAddress, log }));
    }
  }
  const ratios = samples.ready.map((ready, round) => ready.rssPerStream / samples.bare[round]?.rssPerStream);
  log(`Relayed streams: ready / bare RSS per held stream ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
  return { count, wanted, rounds, target: rssPerStreamTarget, samples, ratios };
}
