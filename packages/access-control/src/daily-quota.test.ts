import { describe, expect, it } from 'vitest';
import { createFlakyStore } from '../test/flaky-store.js';
import { createDailyQuota } from './daily-quota.js';
import { utcDay } from './utc-day.js';
import { createMemoryStore } from './memory-store/index.js';

describe('createDailyQuota', () => {
  it('should count per UTC day in the store, refusing what would pass the limit', async () => {
    const store = createMemoryStore();
    let time = Date.UTC(2030, 0, 2, 23, 59, 0);
    const quota = createDailyQuota({ store, now: () => time });
    expect(await quota.reserve('acme:live', 600, 1000)).toMatchObject({ admitted: true, day: '2030-01-02', total: 600, charged: 600, resetsAt: Date.UTC(2030, 0, 3) });
    expect(await quota.reserve('acme:live', 600, 1000)).toMatchObject({ admitted: false, total: 600, charged: 0 });
    time += 60_000;
    expect(await quota.reserve('acme:live', 600, 1000)).toMatchObject({ admitted: true, day: '2030-01-03', total: 600 });
    expect(await store.readDailyTokens({ bucket: 'acme:live', day: '2030-01-02' })).toBe(600);
    await quota.dispose();
  });

  it('should send reservations made in one turn as one, and admit exactly what fits when they do not all fit', async () => {
    const flaky = createFlakyStore(createMemoryStore());
    const quota = createDailyQuota({ store: flaky.store });
    const together = await Promise.all(Array.from({ length: 10 }, () => quota.reserve('acme:live', 100, 10_000)));
    expect(flaky.calls.reserveDailyTokens).toBe(1);
    expect(together.map((decision) => decision.total)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(together.every((decision) => decision.admitted && decision.charged === 100)).toBe(true);
    const edge = await Promise.all(Array.from({ length: 10 }, () => quota.reserve('acme:live', 1000, 8_000)));
    expect(edge.filter((decision) => decision.admitted)).toHaveLength(7);
    expect(await flaky.store.readDailyTokens({ bucket: 'acme:live', day: utcDay(Date.now()) })).toBe(8_000);
    await quota.dispose();
  });

  it('should count on its own from the last total seen while the store is down, and 503 when failing closed', async () => {
    const flaky = createFlakyStore(createMemoryStore());
    const states: boolean[] = [];
    const quota = createDailyQuota({ store: flaky.store, onStateChange: (available) => states.push(available) });
    await quota.reserve('acme:live', 700, 1000);
    flaky.set('down');
    expect(await quota.reserve('acme:live', 200, 1000)).toMatchObject({ admitted: true, total: 900, charged: 0 });
    expect(await quota.reserve('acme:live', 200, 1000)).toMatchObject({ admitted: false, total: 900 });
    expect(states).toEqual([false]);
    await quota.dispose();

    const strict = createDailyQuota({ store: flaky.store, failClosed: true });
    await expect(strict.reserve('acme:live', 1, 1000)).rejects.toMatchObject({ code: 'store_unavailable', status: 503, headers: { 'retry-after': '1' } });
    await strict.dispose();
  });

  it('should take back a reservation the store made after the request stopped waiting', async () => {
    const inner = createMemoryStore();
    let release: () => void = () => undefined;
    const slow = { ...inner, reserveDailyTokens: async (input: Parameters<typeof inner.reserveDailyTokens>[0]) => {
      await new Promise<void>((resolve) => (release = resolve));
      return inner.reserveDailyTokens(input);
    } };
    const quota = createDailyQuota({ store: slow, timeoutMs: 20 });
    expect(await quota.reserve('acme:live', 300, 1000)).toMatchObject({ admitted: true, charged: 0 });
    release();
    const day = utcDay(Date.now());
    const deadline = Date.now() + 2000;
    await new Promise((resolve) => setTimeout(resolve, 20));
    while ((await inner.readDailyTokens({ bucket: 'acme:live', day })) !== 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await inner.readDailyTokens({ bucket: 'acme:live', day })).toBe(0);
    await quota.dispose();
  });
});
