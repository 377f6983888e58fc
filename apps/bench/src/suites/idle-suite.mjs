// Idle streams: memory per open stream that waits for its first token, through the Fastify
// adapter and through a bare Fastify route, with 10,000 streams held at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { procRssBytes } from '../lib/child.mjs';
import { requestHeaders, streamRequestBody } from '../lib/fixtures.mjs';
import { median } from '../lib/stats.mjs';
import { startServer } from '../lib/servers.mjs';

function rawRequest(port) {
  const headers = Object.entries({ ...requestHeaders, host: `127.0.0.1:${port}`, 'content-length': Buffer.byteLength(streamRequestBody) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `POST /v1/chat/completions HTTP/1.1\r\n${headers}\r\n${streamRequestBody}`;
}

async function waitForLive(server, count, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let live = 0;
  while (Date.now() < deadline) {
    live = await server.call('live');
    if (live >= count) return live;
    await sleep(100);
  }
  return live;
}

/** One measurement in a fresh server: RSS growth per idle stream after a GC, at `count` streams. */
let measurements = 0;

async function measureOnce(load, variant, count, log) {
  const server = await startServer(variant, 'idle', ['--expose-gc']);
  const localAddress = `127.0.0.${2 + (measurements++ % 250)}`;
  let serverStopped = false;
  try {
    const request = rawRequest(server.port);
    // Warm-up: the code paths of a stream and its close, so that the baseline holds them.
    await load.call('idleOpen', { port: server.port, request, count: 200, localAddress });
    await waitForLive(server, 200, 10_000);
    await load.call('idleClose');
    await sleep(300);
    const before = await server.call('memory');
    const rssBefore = procRssBytes(server.pid);
    const started = Date.now();
    const opened = await load.call('idleOpen', { port: server.port, request, count, localAddress });
    const live = await waitForLive(server, count, 60_000);
    const openSeconds = (Date.now() - started) / 1000;
    await sleep(500);
    const after = await server.call('memory');
    const rssAfter = procRssBytes(server.pid);
    // The server goes first, so the client side of 10,000 sockets never sits in TIME_WAIT.
    await server.stop();
    serverStopped = true;
    await load.call('idleClose');
    const result = {
      variant,
      count,
      held: live,
      failures: opened.failures,
      openSeconds,
      rssPerStream: (rssAfter - rssBefore) / count,
      heapPerStream: (after.heapUsed + after.external - before.heapUsed - before.external) / count,
      rssAfterMiB: rssAfter / 2 ** 20,
    };
    log(`  idle ${variant}: ${live}/${count} held, ${(result.rssPerStream / 1024).toFixed(1)} KiB RSS and ${(result.heapPerStream / 1024).toFixed(1)} KiB heap per stream`);
    return result;
  } finally {
    if (!serverStopped) await server.stop();
  }
}

/** Alternating rounds of adapter and bare, each in a fresh server; medians per variant. */
export async function runIdleSuite({ load, quick, log }) {
  const count = quick ? 500 : 10_000;
  const rounds = quick ? 1 : 3;
  const variants = [
    { id: 'fastify-adapter', title: 'Fastify adapter' },
    { id: 'fastify-bare', title: 'bare Fastify' },
  ];
  const samples = { 'fastify-adapter': [], 'fastify-bare': [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) samples[variant.id].push(await measureOnce(load, variant.id, count, log));
  }
  return {
    count,
    rounds,
    target: 14 * 1024,
    results: variants.map((variant) => ({
      ...variant,
      held: Math.min(...samples[variant.id].map((sample) => sample.held)),
      failures: Math.max(...samples[variant.id].map((sample) => sample.failures)),
      rssPerStream: median(samples[variant.id].map((sample) => sample.rssPerStream)),
      heapPerStream: median(samples[variant.id].map((sample) => sample.heapPerStream)),
      openSeconds: median(samples[variant.id].map((sample) => sample.openSeconds)),
    })),
  };
}
