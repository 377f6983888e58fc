// The cost of a request as concurrency grows: the ready server and the bare proxy (the
// gateway-cost baseline) relaying to one stand-in upstream, closed-loop with autocannon at 1, 16,
// 128 and 1,024 connections, JSON answers and 20-chunk streams: server CPU per request at each,
// so that growth with concurrency shows. Then the tail at one connection: p50 and p99 of the
// stand-in direct, through the bare proxy and through the ready server, and what each adds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { procCpuSeconds, startChild } from '../lib/child.mjs';
import { requestObject } from '../lib/fixtures.mjs';
import { median, range } from '../lib/stats.mjs';
import { startReadyServer } from './relay-suite.mjs';

const mockScript = fileURLToPath(new URL('../servers/upstream-mock.mjs', import.meta.url));
const bareProxyScript = fileURLToPath(new URL('../servers/bare-proxy.mjs', import.meta.url));

const concurrencies = [1, 16, 128, 1024];
const proxies = ['bare', 'ready'];
const workloads = {
  json: JSON.stringify({ ...requestObject, max_tokens: 62, stream: false }),
  stream: JSON.stringify({ ...requestObject, max_tokens: 20, stream: true }),
};

export async function runConcurrencySuite({ load, quick, log }) {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-bench-concurrency-'));
  const seconds = quick ? 0.5 : Number(process.env.BENCH_CONCURRENCY_SECONDS ?? 2.5);
  const rounds = quick ? 1 : Number(process.env.BENCH_CONCURRENCY_ROUNDS ?? 2);
  const upstream = await startChild(mockScript, { role: 'load' });
  // No cap on the bare proxy's upstream connections: at 1,024 it must not queue where the ready server does not.
  const bare = await startChild(bareProxyScript, { role: 'server', args: [String(upstream.ready.port)], env: { BARE_PROXY_CONNECTIONS: '0' }, stdout: 'ignore' });
  // Load shedding off: past a second of event-loop delay (a burst of 1,024 requests on a shared
  // core gets there) it answers 503 at a fraction of a request's cost, which is not the cost measured here.
  const ready = await startReadyServer(upstream.ready.port, directory, { settings: { overload: false } });
  const servers = {
    direct: { port: upstream.ready.port, pid: upstream.pid, authorization: 'Bearer upstream' },
    bare: { port: bare.ready.port, pid: bare.pid, authorization: 'Bearer upstream' },
    ready: { port: ready.port, pid: ready.pid, authorization: `Bearer ${ready.key}` },
  };
  const headersOf = (side) => ({ 'content-type': 'application/json', authorization: servers[side].authorization });

  async function closedLoop(side, body, connections, runSeconds) {
    const cpuBefore = procCpuSeconds(servers[side].pid);
    const result = await load.call('autocannon', { url: `http://127.0.0.1:${servers[side].port}/v1/chat/completions`, body, headers: headersOf(side), connections, seconds: runSeconds });
    const serverCpu = procCpuSeconds(servers[side].pid) - cpuBefore;
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${side} at ${connections} connections: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    if (result.requests === 0) throw new Error(`${side} at ${connections} connections: no request answered in ${runSeconds} s (raise BENCH_CONCURRENCY_SECONDS)`);
    return { reqPerSec: result.requests / result.seconds, serverCpuUsPerReq: (serverCpu / result.requests) * 1e6, serverBusy: serverCpu / result.seconds, loadBusy: result.loadCpuSeconds / result.seconds };
  }

  try {
    // JIT warm-up of both proxies on both workloads.
    for (const body of Object.values(workloads)) for (const side of proxies) await closedLoop(side, body, 32, quick ? 0.5 : 3);
    const curve = {};
    for (const [workload, body] of Object.entries(workloads)) {
      curve[workload] = [];
      for (const connections of concurrencies) {
        const samples = { bare: [], ready: [] };
        for (let round = 0; round < rounds; round++) {
          for (const side of round % 2 === 0 ? proxies : [...proxies].reverse()) samples[side].push(await closedLoop(side, body, connections, seconds));
        }
        const cpuRatios = samples.ready.map((sample, round) => sample.serverCpuUsPerReq / samples.bare[round].serverCpuUsPerReq);
        const point = {
          connections,
          ...Object.fromEntries(proxies.map((side) => [side, Object.fromEntries(Object.keys(samples[side][0]).map((metric) => [metric, median(samples[side].map((sample) => sample[metric]))]))])),
          cpuRange: Object.fromEntries(proxies.map((side) => [side, range(samples[side].map((sample) => sample.serverCpuUsPerReq))])),
          readyOverBareCpu: { median: median(cpuRatios), range: range(cpuRatios) },
        };
        curve[workload].push(point);
        log(
          `Concurrency: ${workload} at ${connections}: CPU per request bare ${point.bare.serverCpuUsPerReq.toFixed(0)} µs (busy ${(point.bare.serverBusy * 100).toFixed(0)} %), ` +
            `ready ${point.ready.serverCpuUsPerReq.toFixed(0)} µs (busy ${(point.ready.serverBusy * 100).toFixed(0)} %); ready / bare ${point.readyOverBareCpu.median.toFixed(2)}; ` +
            `req/s bare ${point.bare.reqPerSec.toFixed(0)}, ready ${point.ready.reqPerSec.toFixed(0)}; load busy ${(point.ready.loadBusy * 100).toFixed(0)} %`,
        );
      }
    }

    // The tail at one connection, one JSON request at a time.
    const sides = ['direct', 'bare', 'ready'];
    const tail = Object.fromEntries(sides.map((side) => [side, []]));
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const target = { host: '127.0.0.1', port: servers[side].port, path: '/v1/chat/completions', headers: headersOf(side) };
        const result = await load.call('firstChunk', { target, body: workloads.json, seconds: quick ? 0.5 : 3 });
        if (result.failures > 0) throw new Error(`${side}: ${result.failures} failed requests at one connection`);
        tail[side].push({ p50: result.p50, p99: result.p99, count: result.count });
      }
    }
    const added = (side, percentile) => tail[side].map((sample, round) => sample[percentile] - tail.direct[round][percentile]);
    const ratioOf = (percentile) => added('ready', percentile).map((value, round) => value / added('bare', percentile)[round]);
    const oneConnection = {
      p50Ms: Object.fromEntries(sides.map((side) => [side, median(tail[side].map((sample) => sample.p50))])),
      p99Ms: Object.fromEntries(sides.map((side) => [side, median(tail[side].map((sample) => sample.p99))])),
      addedP99Ms: { bare: median(added('bare', 'p99')), ready: median(added('ready', 'p99')) },
      addedP99Ratio: { median: median(ratioOf('p99')), range: range(ratioOf('p99')) },
      addedP50Ratio: { median: median(ratioOf('p50')), range: range(ratioOf('p50')) },
      samples: tail,
    };
    log(
      `Concurrency: one connection: p99 direct ${oneConnection.p99Ms.direct.toFixed(3)} ms, added by bare ${oneConnection.addedP99Ms.bare.toFixed(3)} ms, by ready ${oneConnection.addedP99Ms.ready.toFixed(3)} ms ` +
        `(ready / bare ${oneConnection.addedP99Ratio.median.toFixed(2)}; p50 ratio ${oneConnection.addedP50Ratio.median.toFixed(2)})`,
    );
    return { seconds, rounds, concurrencies, curve, oneConnection };
  } finally {
    await ready.stop();
    await bare.stop();
    await upstream.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
