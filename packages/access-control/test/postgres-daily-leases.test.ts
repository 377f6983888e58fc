import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createDailyQuota } from '../src/daily-quota.js';
import { createPostgresStore } from '../src/postgres-store/index.js';
import { utcDay } from '../src/utc-day.js';
import { postgresAvailable, postgresSkipMessage, startPostgresServer } from './postgres-server.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);

describe.skipIf(!postgresAvailable)('PostgreSQL: per-instance leases of the day', () => {
  it('should never admit past the limit across three instances (its changes too), refuse only without room beside their shares, and count exactly once they close', { timeout: 120_000 }, async () => {
    const server = await startPostgresServer();
    onTestFinished(() => server.stop());
    const url = await server.createDatabase();
    const setUp = createPostgresStore(url);
    await setUp.migrate();
    onTestFinished(() => setUp.close());
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2_000, max: 60_000 }),
        fc.array(fc.record({ instance: fc.nat({ max: 2 }), tokens: fc.integer({ min: 1, max: 3_000 }), burst: fc.integer({ min: 1, max: 8 }), lowered: fc.boolean() }), { minLength: 5, maxLength: 25 }),
        async (highest, turns) => {
          // Three instances: a store (its own connections) and a daily quota each, one day's bucket per run.
          const bucket = `leases-${run++}:live`;
          const stores = [0, 1, 2].map(() => createPostgresStore(url));
          const instances = stores.map((store) => createDailyQuota({ store, leases: true, flushedBySettle: true }));
          try {
            let admitted = 0;
            for (const { instance, tokens, burst, lowered } of turns) {
              // The organisation's limit changes now and then: a share taken under the higher one is not used under the lower.
              const limit = lowered ? Math.floor(highest / 2) : highest;
              const decisions = await Promise.all(Array.from({ length: burst }, () => instances[instance]!.reserve(bucket, tokens, limit)));
              for (const decision of decisions) if (decision.admitted) admitted += decision.charged;
              const counted = await setUp.readDailyTokens({ bucket, day: utcDay(Date.now()) });
              expect(admitted).toBeLessThanOrEqual(highest);
              expect(counted).toBeLessThanOrEqual(highest);
              expect(counted).toBeGreaterThanOrEqual(admitted);
              if (decisions.some((decision) => !decision.admitted)) expect(counted + tokens).toBeGreaterThan(limit);
            }
            await Promise.all(instances.map((quota) => quota.dispose()));
            expect(await setUp.readDailyTokens({ bucket, day: utcDay(Date.now()) })).toBe(admitted);
          } finally {
            await Promise.all(stores.map((store) => store.close()));
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
