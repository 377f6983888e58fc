/** A client that disconnects (before the first token, mid-stream, non-streaming) aborts the engine. */
import { createChatHandler, generateApiKey, type ChatRequestRecord } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import fc from 'fast-check';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCountingAccessControl } from '../src/counting-access-control.js';
import { instrumentEngine } from '../src/instrumented-engine.js';
import { percentile, sleep, waitFor } from '../src/percentile.js';
import { openRawExchange } from '../src/raw-http-client.js';
import { startExpressHost, startFastifyHost, type Host } from '../src/start-hosts.js';

const key = generateApiKey('test');
const disconnectsPerHost = 200;
const concurrency = 4;
// ~30 ms to the first token, then ~100 frames over ~350 ms: a random delay lands before the
// first token, mid-stream, or during a non-streaming request.
const engine = instrumentEngine(createReferenceEngine({ firstTokenDelayMs: 30, tokensPerSecond: 300 }));
const counts = createCountingAccessControl();
const settledRecords = new Map<string, ChatRequestRecord[]>();
const handler = createChatHandler({
  engine: engine.engine,
  accessControl: counts.accessControl,
  onRequestSettled: (record) => settledRecords.set(record.requestId, [...(settledRecords.get(record.requestId) ?? []), record]),
});
const hosts: Host[] = [];

beforeAll(async () => {
  hosts.push(await startExpressHost(handler), await startFastifyHost(handler));
});
afterAll(async () => {
  for (const host of hosts) await host.close();
});

/** Disconnects that lost the race against the engine's own end. */
let raced = 0;

type Phase = 'before-first-token' | 'mid-stream' | 'non-streaming';
interface Sample {
  host: string;
  phase: Phase;
  latencyMs: number;
}

/** One request, cut after `delayMs`; a sample only if the engine was still running then. */
async function disconnectOnce(host: Host, requestId: string, stream: boolean, delayMs: number): Promise<Sample | undefined> {
  const exchange = openRawExchange(host.port, {
    headers: { authorization: `Bearer ${key}`, 'x-request-id': requestId },
    body: JSON.stringify({ model: 'quantum-flash', stream, messages: [{ role: 'user', content: 'Tell me about the history of Rome in detail, with its emperors, wars and culture.' }] }),
  });
  await exchange.sent;
  await sleep(delayMs);
  const call = engine.calls.get(requestId);
  const running = call !== undefined && !call.finished && !exchange.complete();
  const destroyedAt = performance.now();
  const sawBytes = exchange.firstByteAt() !== undefined;
  exchange.socket.destroy();
  if (!running) return undefined;
  await waitFor(() => call.abortedAt !== undefined || call.finished, 1000);
  if (call.abortedAt === undefined && call.finished) {
    // The engine reached its end before the abort could land: no latency to measure. Counted,
    // and bounded below, so that an abort that never comes cannot hide here.
    raced++;
    return undefined;
  }
  if (call.abortedAt === undefined) throw new Error(`${host.name} ${requestId}: the engine was not aborted within 1 s`);
  const phase: Phase = !stream ? 'non-streaming' : sawBytes ? 'mid-stream' : 'before-first-token';
  return { host: host.name, phase, latencyMs: call.abortedAt - destroyedAt };
}

describe('client disconnects', () => {
  // The abort latency is printed, not asserted: timings belong in the benchmarks.
  it('should abort the engine of every client that leaves (before, during and after the first token) and settle every request exactly once', async () => {
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const random = fc.sample(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 420 })), { numRuns: 4000, seed: 7 });
    let draw = 0;
    const samples: Sample[] = [];
    for (const host of hosts) {
      const mine = () => samples.filter((sample) => sample.host === host.name).length;
      let sequence = 0;
      const worker = async () => {
        while (mine() < disconnectsPerHost && draw < random.length) {
          const [stream, delayMs] = random[draw++]!;
          const sample = await disconnectOnce(host, `disconnect-${host.name}-${sequence++}`, stream, delayMs);
          if (sample && mine() < disconnectsPerHost) samples.push(sample);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    }
    // Let the last settlements land.
    await waitFor(() => counts.open.size === 0, 2000);

    const lines: string[] = [];
    const groups = [...hosts.map((host) => host.name), 'before-first-token', 'mid-stream', 'non-streaming', 'all'];
    for (const group of groups) {
      const latencies = samples.filter((sample) => group === 'all' || sample.host === group || sample.phase === group).map((sample) => sample.latencyMs);
      lines.push(`${group.padEnd(19)} n=${String(latencies.length).padStart(3)}  p50=${percentile(latencies, 50).toFixed(2)} ms  p99=${percentile(latencies, 99).toFixed(2)} ms  max=${Math.max(...latencies).toFixed(2)} ms`);
    }
    loop.disable();
    lines.push(`(${raced} more disconnects came as the engine finished anyway: not counted)`);
    lines.push(`(event-loop delay meanwhile: p99=${(loop.percentile(99) / 1e6).toFixed(1)} ms, max=${(loop.max / 1e6).toFixed(1)} ms)`);
    console.log(`client socket destroyed → engine AbortSignal fired\n${lines.join('\n')}`);

    for (const host of hosts) expect(samples.filter((sample) => sample.host === host.name)).toHaveLength(disconnectsPerHost);
    expect(raced).toBeLessThan(samples.length * 0.05);
    for (const phase of ['before-first-token', 'mid-stream', 'non-streaming'] as const) {
      expect(samples.filter((sample) => sample.phase === phase).length).toBeGreaterThan(20);
    }
    // No reservation left behind, none settled twice; the handler reported each request once.
    expect(counts.open.size).toBe(0);
    expect(counts.doubleSettled).toEqual([]);
    expect(counts.settled).toBe(counts.admitted);
    expect([...settledRecords.values()].filter((records) => records.length !== 1)).toEqual([]);
    expect(settledRecords.size).toBe(counts.admitted);
    for (const call of engine.calls.values()) {
      if (!call.finished) expect(settledRecords.get(call.requestId)?.[0]?.interrupted).toBe(true);
    }
  }, 120_000);
});
