import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { postChat, type AdapterKind } from './helpers/start-front-server.js';
import { closedAt, endlessAnswerThrough } from './helpers/endless-upstream.js';

const rounds = 60;

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

describe.each<AdapterKind>(['fastify', 'express'])('a client leaving mid-stream through %s', (kind) => {
  const servers = endlessAnswerThrough(kind);

  // The close latency is printed, not asserted: timings belong in the benchmarks.
  it('should close the upstream socket every time the client aborts', { timeout: 30_000 }, async () => {
    const { upstream, front } = servers;
    const latencies: number[] = [];
    // Round 0 warms up (undici compiles its WASM parser on first use) and is not counted.
    for (let round = 0; round <= rounds; round++) {
      const controller = new AbortController();
      const response = await postChat(front.baseUrl, { model: 'quantum-flash', messages: [{ role: 'user', content: 'Go' }], stream: true }, { signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      await reader.read();
      const record = upstream.requests.at(-1)!;
      expect(record.socketClosedAt).toBeUndefined();
      const abortedAt = performance.now();
      controller.abort();
      const latency = (await closedAt(record)) - abortedAt;
      if (round > 0) latencies.push(latency);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const figures = { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99), max: sorted.at(-1)! };
    const shown = Object.entries(figures).map(([name, value]) => `${name} ${value.toFixed(2)} ms`);
    console.log(`[disconnect ${kind}] upstream socket closed after client abort, ${rounds} rounds: ${shown.join(', ')}`);
    // A close that never came (within 2 s) is counted as infinite.
    expect(latencies.filter((latency) => !Number.isFinite(latency)), 'rounds whose upstream socket stayed open').toEqual([]);
  });
});
