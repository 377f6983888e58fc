import { describe, expect, it, onTestFinished } from 'vitest';
import { redisServerAvailable, redisSkipMessage, startRedisServer } from '../../../packages/access-control/test/redis-server.js';
import { Redis } from 'ioredis';
import { createRedisReplayGuard } from './redis-replay-guard.js';

describe.skipIf(!redisServerAvailable)('createRedisReplayGuard', () => {
  it('should accept a signature once across instances (SET NX PX), and fall back to memory when Redis is gone', async () => {
    if (!redisServerAvailable) console.warn(redisSkipMessage);
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const changes: boolean[] = [];
    const first = createRedisReplayGuard(redis.url, (available) => changes.push(available));
    const second = createRedisReplayGuard(redis.url, () => undefined);
    onTestFinished(async () => {
      await first.close();
      await second.close();
    });
    expect(await first.claim('t=1,v1=aa', 60_000)).toBe(true);
    expect(await second.claim('t=1,v1=aa', 60_000)).toBe(false);
    expect(await second.claim('t=1,v1=bb', 50)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await first.claim('t=1,v1=bb', 50)).toBe(true);
    expect(changes).toEqual([]);
    await redis.kill();
    expect(await first.claim('t=2,v1=cc', 60_000)).toBe(true);
    expect(await first.claim('t=2,v1=cc', 60_000)).toBe(false);
    for (let index = 0; index < 5; index++) await first.claim(`t=3,v1=${index}`, 60_000);
    // One report for the outage, however many claims met it; one when Redis is back.
    expect(changes).toEqual([false]);
    await redis.restart();
    await expect.poll(() => Promise.resolve(first.claim(`t=4,v1=${Math.random()}`, 60_000)).then(() => changes), { timeout: 5000, interval: 50 }).toEqual([false, true]);
  });

  it('should refuse with 503 when Redis is out of memory or its stand-in memory is full, never forgetting a claim', async () => {
    if (!redisServerAvailable) console.warn(redisSkipMessage);
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const guard = createRedisReplayGuard(redis.url, () => undefined, { fallbackMaxEntries: 2 });
    const admin = new Redis(redis.url);
    onTestFinished(async () => {
      await guard.close();
      admin.disconnect();
    });
    expect(await guard.claim('t=1,sha256=aa', 60_000)).toBe(true);
    // A Redis that may not grow refuses writes (noeviction): no claim may pass unrecorded.
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    await expect(guard.claim('t=1,sha256=bb', 60_000)).rejects.toMatchObject({ status: 503, code: 'overloaded' });
    await admin.config('SET', 'maxmemory', '0');
    expect(await guard.claim('t=1,sha256=bb', 60_000)).toBe(true);
    expect(await guard.claim('t=1,sha256=aa', 60_000)).toBe(false);
    admin.disconnect();
    await redis.kill();
    expect(await guard.claim('t=2,sha256=cc', 60_000)).toBe(true);
    expect(await guard.claim('t=2,sha256=dd', 60_000)).toBe(true);
    await expect(Promise.resolve().then(() => guard.claim('t=2,sha256=ee', 60_000))).rejects.toMatchObject({ status: 503, code: 'overloaded', headers: { 'retry-after': '60' } });
    expect(await guard.claim('t=2,sha256=cc', 60_000)).toBe(false);
  });
});
