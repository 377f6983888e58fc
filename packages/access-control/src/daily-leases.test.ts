import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFlakyStore } from '../test/flaky-store.js';
import { createDailyQuota, type DailyDecision } from './daily-quota.js';
import { utcDay } from './utc-day.js';
import { createMemoryStore } from './memory-store/index.js';

const bucket = 'acme:live';
const today = () => utcDay(Date.now());

describe('daily leases', () => {
  it('should ask the store once for many reservations far from the limit, and give the unused tokens back on dispose', async () => {
    const flaky = createFlakyStore(createMemoryStore());
    const quota = createDailyQuota({ store: flaky.store, leases: true });
    const decisions: DailyDecision[] = [];
    for (let i = 0; i < 100; i++) decisions.push(await quota.reserve(bucket, 300, 1_000_000_000));
    expect(decisions.every((decision) => decision.admitted && decision.charged === 300)).toBe(true);
    expect(decisions.map((decision) => decision.total)).toEqual(Array.from({ length: 100 }, (_, i) => 300 * (i + 1)));
    // A lease of 32 requests' tokens rides along each store reservation: 1 + 32 requests per call.
    expect(flaky.calls.reserveDailyTokens).toBe(Math.ceil(100 / 33));
    expect(await flaky.store.readDailyTokens({ bucket, day: today() })).toBeGreaterThan(30_000);
    await quota.dispose();
    expect(await flaky.store.readDailyTokens({ bucket, day: today() })).toBe(30_000);
  });

  it('should admit and refuse exactly as reservations without leases do, one instance, any sizes, settles and limit changes between', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 50_000 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ tokens: fc.integer({ min: 1, max: 3_000 }), refund: fc.nat({ max: 3_000 }), limit: fc.nat({ max: 2 }) }), { maxLength: 60 }),
        async (limits, requests) => {
          const leased = createMemoryStore();
          const exact = createMemoryStore();
          const withLeases = createDailyQuota({ store: leased, leases: true });
          const without = createDailyQuota({ store: exact });
          let refunded = 0;
          for (const { tokens, refund, limit: which } of requests) {
            // The organisation's limit may change between requests.
            const limit = limits[which % limits.length]!;
            const a = await withLeases.reserve(bucket, tokens, limit);
            const b = await without.reserve(bucket, tokens, limit);
            expect({ ...a, total: 0 }).toEqual({ ...b, total: 0 });
            // The day's count a lease reports has not seen the settles since it was taken: never less.
            expect(a.total - b.total).toBeGreaterThanOrEqual(0);
            expect(a.total - b.total).toBeLessThanOrEqual(refunded);
            // The request settles below its reservation: both give the difference back as its usage row does.
            const back = Math.min(refund, a.charged);
            if (a.admitted && back > 0) {
              await leased.addDailyTokens({ bucket, day: a.day, tokens: -back });
              await exact.addDailyTokens({ bucket, day: b.day, tokens: -back });
              refunded += back;
            }
          }
          await withLeases.dispose();
          await without.dispose();
          expect(await leased.readDailyTokens({ bucket, day: today() })).toBe(await exact.readDailyTokens({ bucket, day: today() }));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('should never admit past the limit across instances sharing a store (bursts), and count exactly once their leases are back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1_000, max: 200_000 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.record({ instance: fc.nat({ max: 2 }), tokens: fc.integer({ min: 1, max: 4_000 }), burst: fc.integer({ min: 1, max: 6 }) }), { maxLength: 40 }),
        async (limit, count, turns) => {
          const store = createMemoryStore();
          const instances = Array.from({ length: count }, () => createDailyQuota({ store, leases: true }));
          let admitted = 0;
          for (const { instance, tokens, burst } of turns) {
            const decisions = await Promise.all(Array.from({ length: burst }, () => instances[instance % count]!.reserve(bucket, tokens, limit)));
            for (const decision of decisions) if (decision.admitted) admitted += decision.charged;
            const counted = await store.readDailyTokens({ bucket, day: today() });
            expect(admitted).toBeLessThanOrEqual(limit);
            expect(counted).toBeLessThanOrEqual(limit);
            // What the store counts beyond the admitted tokens is the instances' unused leases.
            expect(counted - admitted).toBeLessThanOrEqual(3 * 32 * 4_000 * 6);
            // A refusal is final but for those leases: a request refused would not fit beside them.
            if (decisions.some((decision) => !decision.admitted)) expect(counted + tokens).toBeGreaterThan(limit);
            // Alone, an instance's own lease never refuses it.
            if (count === 1 && decisions.some((decision) => !decision.admitted)) expect(admitted + tokens).toBeGreaterThan(limit);
          }
          await Promise.all(instances.map((quota) => quota.dispose()));
          expect(await store.readDailyTokens({ bucket, day: today() })).toBe(admitted);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('should give an idle lease back, so that another instance is refused by it for at most the idle time', async () => {
    const store = createMemoryStore();
    const first = createDailyQuota({ store, leases: { idleMs: 30 } });
    const second = createDailyQuota({ store, leases: { idleMs: 30 } });
    expect(await first.reserve(bucket, 100, 10_000)).toMatchObject({ admitted: true, total: 100 });
    // The first instance holds a lease beyond its 100 tokens: 9,900 left, not all of it for the second.
    expect(await store.readDailyTokens({ bucket, day: today() })).toBeGreaterThan(100);
    expect(await second.reserve(bucket, 9_900, 10_000)).toMatchObject({ admitted: false });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await store.readDailyTokens({ bucket, day: today() })).toBe(100);
    expect(await second.reserve(bucket, 9_900, 10_000)).toMatchObject({ admitted: true, total: 10_000, charged: 9_900 });
    await Promise.all([first.dispose(), second.dispose()]);
  });

  it('should lease at most a sixteenth of what the day has left, and nothing once that is less than a request', async () => {
    const flaky = createFlakyStore(createMemoryStore());
    const quota = createDailyQuota({ store: flaky.store, leases: true });
    await flaky.store.addDailyTokens({ bucket, day: today(), tokens: 9_000 });
    const decisions: DailyDecision[] = [];
    for (let i = 0; i < 11; i++) decisions.push(await quota.reserve(bucket, 100, 10_000));
    // The first asks 100 and a lease of (10,000 − 100) / 16 = 618, which covers six more; then 182
    // are left beside the lease's 18, a sixteenth of which is under a request: one store call each.
    expect(flaky.calls.reserveDailyTokens).toBe(1 + 4);
    expect(decisions.slice(0, 10).every((decision) => decision.admitted)).toBe(true);
    expect(decisions[10]).toMatchObject({ admitted: false, total: 10_000 });
    expect(await flaky.store.readDailyTokens({ bucket, day: today() })).toBe(10_000);
    await quota.dispose();
  });

  it('should count a lease taken under another limit as its own when the limit changes, and not admit from it', async () => {
    const flaky = createFlakyStore(createMemoryStore());
    const quota = createDailyQuota({ store: flaky.store, leases: true });
    await quota.reserve(bucket, 100, 1_000_000);
    // 100 used and a lease of 3,200 counted: the day's new limit of 1,000 still has 900 for its requests.
    expect(await flaky.store.readDailyTokens({ bucket, day: today() })).toBe(3_300);
    expect(await quota.reserve(bucket, 800, 1_000)).toMatchObject({ admitted: true, total: 900, charged: 800 });
    expect(await flaky.store.readDailyTokens({ bucket, day: today() })).toBe(900);
    expect(await quota.reserve(bucket, 200, 1_000)).toMatchObject({ admitted: false, total: 900 });
    expect(flaky.calls.reserveDailyTokens).toBe(3);
    await quota.dispose();
  });

  it('should keep using a lease while the store is down, and keep it when a reservation could not reach the store', async () => {
    const flaky = createFlakyStore(createMemoryStore());
    const quota = createDailyQuota({ store: flaky.store, leases: true });
    await quota.reserve(bucket, 100, 1_000_000);
    flaky.set('down');
    // The lease's tokens are counted in the store already.
    expect(await quota.reserve(bucket, 100, 1_000_000)).toMatchObject({ admitted: true, total: 200, charged: 100 });
    flaky.set('up');
    await quota.dispose();
    expect(await flaky.store.readDailyTokens({ bucket, day: today() })).toBe(200);
  });
});
