/** A client that stops reading makes the server stop pulling from the engine; a stream parked past the stall timeout is ended. */
import { createChatHandler, generateApiKey, type ChatRequestRecord } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createCountingAccessControl } from '../src/counting-access-control.js';
import { measureMemory } from '../src/force-gc.js';
import { createUnboundedEngine, instrumentEngine } from '../src/instrumented-engine.js';
import { sleep, waitFor } from '../src/percentile.js';
import { openRawExchange, type RawExchange } from '../src/raw-http-client.js';
import { startExpressHost, startFastifyHost, type Host } from '../src/start-hosts.js';

const key = generateApiKey('test');
const clients = 200;
const chunkBytes = 8192;
const megabyte = 1024 * 1024;
const body = JSON.stringify({ model: 'quantum-flash', stream: true, messages: [{ role: 'user', content: 'Go on forever.' }] });
const hostFactories = [['express', startExpressHost], ['fastify', startFastifyHost]] as const;

function connections(host: Host): Promise<number> {
  return new Promise((resolve, reject) => host.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

describe.each(hostFactories)('never-reading clients through %s', (name, startHost) => {
  it(`should stop pulling from an endless engine for ${clients} clients that never read, with bounded memory`, async () => {
    const engine = instrumentEngine(createUnboundedEngine(chunkBytes));
    const counts = createCountingAccessControl();
    const host = await startHost(createChatHandler({ engine: engine.engine, accessControl: counts.accessControl }));
    const exchanges: RawExchange[] = [];
    try {
      const before = measureMemory();
      for (let index = 0; index < clients; index++) {
        exchanges.push(openRawExchange(host.port, { neverRead: true, headers: { authorization: `Bearer ${key}`, 'x-request-id': `${name}-silent-${index}` }, body }));
      }
      await Promise.all(exchanges.map((exchange) => exchange.sent));
      await waitFor(() => engine.calls.size === clients, 10_000);
      // Wait until the pulls stop growing: every stream is parked on a full socket.
      const totalPulls = () => [...engine.calls.values()].reduce((sum, call) => sum + call.pulls, 0);
      let previous = -1;
      for (let round = 0; round < 60 && totalPulls() !== previous; round++) {
        previous = totalPulls();
        await sleep(500);
      }
      const parked = measureMemory();
      const pullsWhenParked = totalPulls();
      await sleep(2000);
      const later = measureMemory();
      const pulls = [...engine.calls.values()].map((call) => call.pulls);
      const maxPulls = Math.max(...pulls);
      const figures = {
        host: name,
        clients,
        'engine pulls per stream (mean / max)': `${(pullsWhenParked / clients).toFixed(0)} / ${maxPulls}`,
        'MiB pulled per stream (max)': ((maxPulls * chunkBytes) / megabyte).toFixed(2),
        'heap growth per client (KiB)': ((parked.heapUsed - before.heapUsed) / clients / 1024).toFixed(1),
        'RSS growth per client (KiB)': ((parked.rss - before.rss) / clients / 1024).toFixed(1),
        'external+arrayBuffers growth per client (KiB)': ((parked.external - before.external) / clients / 1024).toFixed(1),
        'heap change over the next 2 s (KiB)': ((later.heapUsed - parked.heapUsed) / 1024).toFixed(1),
      };
      console.log(figures);

      expect(engine.calls.size).toBe(clients);
      // Bounded: nothing more was pulled while the clients kept not reading...
      expect(totalPulls()).toBe(pullsWhenParked);
      // ...and what was pulled is what the socket buffers hold (a few MiB at most), not more.
      expect(maxPulls * chunkBytes).toBeLessThan(16 * megabyte);
      expect((parked.heapUsed - before.heapUsed) / clients).toBeLessThan(512 * 1024);
      expect(later.heapUsed - parked.heapUsed).toBeLessThan(16 * megabyte);
      expect(counts.settled).toBe(0);
    } finally {
      for (const exchange of exchanges) exchange.socket.destroy();
      await waitFor(() => counts.open.size === 0, 5000);
      await host.close();
    }
    // Every parked stream was aborted and settled once when its client finally left.
    expect([...engine.calls.values()].filter((call) => call.abortedAt === undefined)).toEqual([]);
    expect(counts.open.size).toBe(0);
    expect(counts.settled).toBe(counts.admitted);
    expect(counts.doubleSettled).toEqual([]);
  }, 90_000);

  it('should end a stream parked past stallTimeoutMs: engine aborted, request settled, connection closed', async () => {
    const engine = instrumentEngine(createUnboundedEngine(chunkBytes));
    const counts = createCountingAccessControl();
    const records: ChatRequestRecord[] = [];
    const host = await startHost(
      createChatHandler({ engine: engine.engine, accessControl: counts.accessControl, stallTimeoutMs: 300, onRequestSettled: (record) => records.push(record) }),
    );
    try {
      const exchange = openRawExchange(host.port, { neverRead: true, headers: { authorization: `Bearer ${key}`, 'x-request-id': `${name}-stalled` }, body });
      await exchange.sent;
      await waitFor(() => engine.calls.has(`${name}-stalled`), 5000);
      const call = engine.calls.get(`${name}-stalled`)!;
      const started = performance.now();
      expect(await waitFor(() => call.abortedAt !== undefined, 5000)).toBe(true);
      expect(await waitFor(() => records.length === 1, 1000)).toBe(true);
      console.log(`${name}: stalled stream given up ${(call.abortedAt! - started).toFixed(0)} ms after the server started waiting (stallTimeoutMs 300)`);
      // The server closed its side: no connection left, and the client, reading at last, sees
      // the stream end without [DONE].
      const closed = new Promise<void>((resolve) => exchange.socket.once('close', () => resolve()));
      const chunks: Buffer[] = [];
      exchange.socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      await closed;
      expect(await connections(host)).toBe(0);
      const text = Buffer.concat(chunks).toString('utf8');
      expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
      expect(text).not.toContain('data: [DONE]');
      expect(records[0]).toMatchObject({ requestId: `${name}-stalled`, status: 200, interrupted: true });
      expect(counts.open.size).toBe(0);
      expect(counts.settled).toBe(1);
    } finally {
      await host.close();
    }
  }, 30_000);
});
