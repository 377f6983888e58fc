// The gateway-cost baseline: the ready server relaying to the stand-in upstream against a bare proxy
// (one Fastify route forwarding with undici, src/servers/bare-proxy.mjs) and the stand-in
// called directly, all three in one run, same stand-in, same load. Closed-loop req/s and server
// CPU per request for JSON answers and 20-chunk streams, then p50 latency at one connection.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { procCpuSeconds, procMainThreadCpuSeconds, startChild } from '../lib/child.mjs';
import { requestObject } from '../lib/fixtures.mjs';
import { median, range } from '../lib/stats.mjs';
import { startReadyServer } from './relay-suite.mjs';

const mockScript = fileURLToPath(new URL('../servers/upstream-mock.mjs', import.meta.url));
const bareProxyScript = fileURLToPath(new URL('../servers/bare-proxy.mjs', import.meta.url));

/** The targets: ready / bare proxy, and the latency each adds over direct. */
const bareProxyTargets = { jsonRatio: 0.6, streamRatio: 0.6, addedLatencyRatio: 1.5 };

const sides = ['direct', 'bare', 'ready'];
// 62 content pieces make the stand-in's chat completion about 700 bytes.
const workloads = {
  json: JSON.stringify({ ...requestObject, max_tokens: 62, stream: false }),
  stream: JSON.stringify({ ...requestObject, max_tokens: 20, stream: true }),
};

/** Rounds alternate the order of the sides (ABC, CBA, …) so that drift in the machine's load hits each alike. */
const orderOf = (round, list = sides) => (round % 2 === 0 ? list : [...list].reverse());

export async function runBareProxySuite({ load, protocol, quick, log }) {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-bench-bare-proxy-'));
  const upstream = await startChild(mockScript, { role: 'load' });
  const upstreamPort = upstream.ready.port;
  const bare = await startChild(bareProxyScript, { role: 'server', args: [String(upstreamPort)], stdout: 'ignore' });
  // The ready server with its defaults: SQLite store, durable usage ledger, access log at info.
  const ready = await startReadyServer(upstreamPort, directory);
  const connections = Number(process.env.BENCH_BARE_PROXY_CONNECTIONS ?? 32);
  const servers = {
    direct: { port: upstreamPort, pid: upstream.pid, authorization: 'Bearer upstream' },
    bare: { port: bare.ready.port, pid: bare.pid, authorization: 'Bearer upstream' },
    ready: { port: ready.port, pid: ready.pid, authorization: `Bearer ${ready.key}` },
  };
  const headersOf = (side) => ({ 'content-type': 'application/json', authorization: servers[side].authorization });

  async function closedLoop(side, body, seconds) {
    const { pid } = servers[side];
    const cpuBefore = procCpuSeconds(pid);
    const mainBefore = procMainThreadCpuSeconds(pid);
    const result = await load.call('autocannon', { url: `http://127.0.0.1:${servers[side].port}/v1/chat/completions`, body, headers: headersOf(side), connections, seconds });
    const serverCpu = procCpuSeconds(pid) - cpuBefore;
    const mainCpu = procMainThreadCpuSeconds(pid) - mainBefore;
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${side}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    return {
      reqPerSec: result.requests / result.seconds,
      serverCpuUsPerReq: (serverCpu / result.requests) * 1e6,
      // Where it went: the event loop, and every other thread (the ready server's SQLite worker, V8's GC helpers, libuv's pool).
      mainThreadCpuUsPerReq: (mainCpu / result.requests) * 1e6,
      otherThreadsCpuUsPerReq: ((serverCpu - mainCpu) / result.requests) * 1e6,
      reqPerCpuSec: result.requests / serverCpu,
      serverBusy: serverCpu / result.seconds,
      loadBusy: result.loadCpuSeconds / result.seconds,
    };
  }

  try {
    const rounds = quick ? 1 : protocol.pairs;
    const throughput = {};
    for (const [workload, body] of Object.entries(workloads)) {
      for (const side of sides) await closedLoop(side, body, protocol.warmupSeconds);
      const samples = Object.fromEntries(sides.map((side) => [side, []]));
      for (let round = 0; round < rounds; round++) {
        for (const side of orderOf(round)) samples[side].push(await closedLoop(side, body, protocol.seconds));
      }
      throughput[workload] = summarise(samples);
      const { ratio } = throughput[workload];
      log(
        `Bare proxy: ${workload} at ${connections} connections: ` +
          sides.map((side) => `${side} ${Math.round(throughput[workload].median[side].reqPerSec)} req/s`).join(', ') +
          `; ready/bare ${ratio.reqPerSec.median.toFixed(2)} req/s, ${ratio.reqPerCpuSec.median.toFixed(2)} per CPU-second`,
      );
    }

    // One connection, one request at a time: the JSON answer's p50, and what each proxy adds over
    // direct. Beside the ready server's default, the same server with its usage rows written in
    // batches (`usageWrites: "buffered"`): what the durable commit before each answer costs.
    const bufferedDirectory = join(directory, 'buffered');
    mkdirSync(bufferedDirectory);
    const buffered = await startReadyServer(upstreamPort, bufferedDirectory, { settings: { store: { usageWrites: 'buffered' } } });
    servers.buffered = { port: buffered.port, pid: buffered.pid, authorization: `Bearer ${buffered.key}` };
    const latencySides = [...sides, 'buffered'];
    const latencySamples = Object.fromEntries(latencySides.map((side) => [side, []]));
    try {
      // Its JIT warm-up, as the other sides had theirs in the closed-loop rounds above.
      await closedLoop('buffered', workloads.json, protocol.warmupSeconds);
      for (let round = 0; round < rounds; round++) {
        for (const side of orderOf(round, latencySides)) {
          const target = { host: '127.0.0.1', port: servers[side].port, path: '/v1/chat/completions', headers: headersOf(side) };
          const result = await load.call('firstChunk', { target, body: workloads.json, seconds: protocol.seconds });
          if (result.failures > 0) throw new Error(`${side}: ${result.failures} failed requests at one connection`);
          latencySamples[side].push(result.p50);
        }
      }
    } finally {
      await buffered.stop();
    }
    const latencyP50Ms = Object.fromEntries(latencySides.map((side) => [side, median(latencySamples[side])]));
    const addedRatiosOf = (side) => latencySamples[side].map((p50, round) => (p50 - latencySamples.direct[round]) / (latencySamples.bare[round] - latencySamples.direct[round]));
    const addedRatio = (side) => ({ median: median(addedRatiosOf(side)), range: range(addedRatiosOf(side)) });
    const addedMs = Object.fromEntries(latencySides.filter((side) => side !== 'direct').map((side) => [side, latencyP50Ms[side] - latencyP50Ms.direct]));
    const latency = { p50Ms: latencyP50Ms, addedMs, addedRatio: addedRatio('ready'), bufferedAddedRatio: addedRatio('buffered') };
    log(
      `Bare proxy: p50 at one connection: direct ${latencyP50Ms.direct.toFixed(3)} ms, added by bare ${addedMs.bare.toFixed(3)} ms, ` +
        `by ready ${addedMs.ready.toFixed(3)} ms (buffered usage writes ${addedMs.buffered.toFixed(3)} ms)`,
    );
    return { connections, rounds, seconds: protocol.seconds, throughput, latency, targets: bareProxyTargets };
  } finally {
    await ready.stop();
    await bare.stop();
    await upstream.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Medians per side, and the per-round ratios ready / bare (median and range). */
function summarise(samples) {
  const metrics = Object.keys(samples.direct[0]);
  const medianOf = (side) => Object.fromEntries(metrics.map((metric) => [metric, median(samples[side].map((sample) => sample[metric]))]));
  const ratioOf = (metric) => {
    const ratios = samples.ready.map((sample, round) => sample[metric] / samples.bare[round][metric]);
    return { median: median(ratios), range: range(ratios) };
  };
  return {
    median: Object.fromEntries(sides.map((side) => [side, medianOf(side)])),
    ratio: { reqPerSec: ratioOf('reqPerSec'), reqPerCpuSec: ratioOf('reqPerCpuSec') },
  };
}
