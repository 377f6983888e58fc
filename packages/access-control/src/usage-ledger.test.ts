import { afterEach, describe, expect, it } from 'vitest';
import { createFlakyStore } from '../test/flaky-store.js';
import { createMemoryStore } from './memory-store/index.js';
import { createUsageLedger, type UsageLedger } from './usage-ledger.js';

const base = (usageId: string) => ({ usageId, requestId: `req_${usageId}`, keyId: 'key_1', organisation: 'acme', model: 'quantum-lite', promptTokens: 10, timestamp: 1_000 });
const done = { promptTokens: 10, completionTokens: 5, status: 200, interrupted: false };

let ledgers: UsageLedger[] = [];
afterEach(async () => {
  await Promise.all(ledgers.map((ledger) => ledger.close(0)));
  ledgers = [];
});

function open(options: Partial<Parameters<typeof createUsageLedger>[0]> = {}) {
  const inner = createMemoryStore();
  const flaky = createFlakyStore(inner);
  const ledger = createUsageLedger({ store: flaky.store, flushIntervalMs: 60_000, durable: false, ...options });
  ledgers.push(ledger);
  return { inner, flaky, ledger };
}

describe('createUsageLedger, buffered', () => {
  it('should write many settled requests in one batch', async () => {
    const { inner, flaky, ledger } = open();
    for (let index = 0; index < 50; index++) void ledger.begin(base(`u${index}`)).settle(done);
    expect(ledger.pending).toBe(50);
    await ledger.flush();
    expect(flaky.calls.writeUsage).toBe(1);
    expect(ledger.pending).toBe(0);
    expect(await inner.listUsage({ organisation: 'acme' })).toHaveLength(50);
  });

  it('should keep rows while the store is down and write each exactly once when it is back', async () => {
    const errors: unknown[] = [];
    const { inner, flaky, ledger } = open({ onWriteError: (error) => errors.push(error) });
    void ledger.begin(base('a')).settle(done);
    flaky.set('down');
    await ledger.flush();
    void ledger.begin(base('b')).settle(done);
    await ledger.flush();
    expect(errors).toHaveLength(2);
    expect(ledger.pending).toBe(2);
    flaky.set('up');
    await ledger.flush();
    await ledger.flush();
    expect((await inner.listUsage({ organisation: 'acme' })).map((row) => row.usageId)).toEqual(['a', 'b']);
  });

  it('should drop the oldest rows past its bound, and say how many', async () => {
    const drops: number[] = [];
    const { inner, flaky, ledger } = open({ maxBufferedRecords: 3, onDropped: (_count, total) => drops.push(total) });
    flaky.set('down');
    for (const id of ['a', 'b', 'c', 'd', 'e']) void ledger.begin(base(id)).settle(done);
    expect(ledger.dropped).toBe(2);
    expect(drops).toEqual([1, 2]);
    flaky.set('up');
    await ledger.flush();
    expect((await inner.listUsage({ organisation: 'acme' })).map((row) => row.usageId)).toEqual(['c', 'd', 'e']);
  });

  it('should write running requests as progress rows, then their settled row', async () => {
    const { inner, ledger } = open();
    const running = ledger.begin(base('s'));
    let produced = 3;
    running.track(() => ({ promptTokens: 10, completionTokens: produced }));
    await ledger.flush();
    expect(await inner.listUsage({ organisation: 'acme' })).toMatchObject([{ usageId: 's', completionTokens: 3, settled: false, interrupted: true }]);
    produced = 9;
    await ledger.flush();
    expect((await inner.listUsage({ organisation: 'acme' }))[0]).toMatchObject({ completionTokens: 9, settled: false });
    void running.settle({ ...done, completionTokens: 12 });
    await ledger.flush();
    expect((await inner.listUsage({ organisation: 'acme' }))[0]).toMatchObject({ completionTokens: 12, settled: true, interrupted: false });
  });

  it('should flush by itself every interval', async () => {
    const { inner, ledger } = open({ flushIntervalMs: 20 });
    void ledger.begin(base('t')).settle(done);
    const deadline = Date.now() + 5000;
    while ((await inner.listUsage({ organisation: 'acme' })).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await inner.listUsage({ organisation: 'acme' })).toHaveLength(1);
  });
});

describe('createUsageLedger, durable (group commit)', () => {
  it('should resolve a settle only once its row is in the store', async () => {
    const { inner, ledger } = open({ durable: true });
    const settled = ledger.begin(base('a')).settle(done);
    expect(ledger.pending).toBe(1);
    await settled;
    expect(ledger.pending).toBe(0);
    expect(await inner.listUsage({ organisation: 'acme' })).toMatchObject([{ usageId: 'a', settled: true, completionTokens: 5 }]);
  });

  it('should write the rows of requests settling together in one write', async () => {
    const { inner, flaky, ledger } = open({ durable: true });
    await Promise.all(Array.from({ length: 40 }, (_, index) => ledger.begin(base(`g${index}`)).settle(done)));
    expect(flaky.calls.writeUsage).toBe(1);
    expect(await inner.listUsage({ organisation: 'acme' })).toHaveLength(40);
  });

  it('should hold at most maxWritesInFlight writes in the store; rows settling meanwhile wait, then go together', async () => {
    const { inner, flaky, ledger } = open({ durable: true, maxWritesInFlight: 2 });
    // A durable write leaves in the turn after the one its rows settled in.
    const turn = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    flaky.set('hung');
    const hung = [ledger.begin(base('first')).settle(done)];
    await turn();
    hung.push(ledger.begin(base('second')).settle(done));
    await turn();
    expect(flaky.calls.writeUsage).toBe(2);
    flaky.set('up');
    const later = Array.from({ length: 10 }, (_, index) => ledger.begin(base(`later${index}`)).settle(done));
    await turn();
    // Both slots are taken by the hung writes: the ten wait.
    expect(flaky.calls.writeUsage).toBe(2);
    expect(ledger.pending).toBe(12);
    for (const settle of [...hung, ...later]) void settle.catch(() => undefined);
    expect((await inner.listUsage({ organisation: 'acme' })).length).toBe(0);
  });

  it('should keep one write in the store by default: rows settling while it is there wait for it', async () => {
    const { flaky, ledger } = open({ durable: true });
    const turn = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    flaky.set('hung');
    const first = ledger.begin(base('first')).settle(done);
    await turn();
    const later = Array.from({ length: 10 }, (_, index) => ledger.begin(base(`later${index}`)).settle(done));
    await turn();
    expect(flaky.calls.writeUsage).toBe(1);
    expect(ledger.pending).toBe(11);
    for (const settle of [first, ...later]) void settle.catch(() => undefined);
  });

  it('should refuse a settle whose row the store did not take in time, keep the row, and write it once the store is back', async () => {
    const { inner, flaky, ledger } = open({ durable: true, commitTimeoutMs: 50 });
    flaky.set('down');
    const error = await ledger.begin(base('late')).settle(done).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'store_unavailable', status: 503 });
    expect(ledger.pending).toBe(1);
    flaky.set('up');
    await ledger.flush();
    expect(await inner.listUsage({ organisation: 'acme' })).toMatchObject([{ usageId: 'late', settled: true, completionTokens: 5, interrupted: true }]);
  });

  it('should retry by itself after a failed write, before the flush interval, and resolve the waiting settle', async () => {
    const { inner, flaky, ledger } = open({ durable: true, commitTimeoutMs: 5000 });
    flaky.set('down');
    const settled = ledger.begin(base('retried')).settle(done);
    await new Promise((resolve) => setTimeout(resolve, 30));
    flaky.set('up');
    await settled;
    expect(await inner.listUsage({ organisation: 'acme' })).toMatchObject([{ usageId: 'retried', settled: true, interrupted: false }]);
  });
});
