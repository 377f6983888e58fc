import { describe, expect, it, onTestFinished } from 'vitest';
import { redisServerAvailable, redisSkipMessage, startRedisServer } from '../../../packages/access-control/test/redis-server.js';
import { createRedisReplayGuard } from './redis-replay-guard.js';

describe.skipIf(!redisServerAvailable)('createRedisReplayGuard', () => {
  it('should accept a signature once across instances (SET NX PX), and fall back to memory when Redis is gone', async () => {
    if (!redisServerAvailable) console.warn(redisSkipMessage);
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const errors: unknown[] = [];
    const first = createRedisReplayGuard(redis.url, (error) => errors.push(error));
    const second = createRedisReplayGuard(redis.url, (error) => errors.push(error));
    onTestFinished(async () => {
      await first.close();
      await second.close();
    });
    expect(await first.claim('t=1,v1=aa', 60_000)).toBe(true);
    expect(await second.claim('t=1,v1=aa', 60_000)).toBe(false);
    expect(await second.claim('t=1,v1=bb', 50)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await first.claim('t=1,v1=bb', 50)).toBe(true);
    expect(errors).toEqual([]);
    await redis.kill();
    expect(await first.claim('t=2,v1=cc', 60_000)).toBe(true);
    expect(await first.claim('t=2,v1=cc', 60_000)).toBe(false);
    expect(errors.length).toBeGreaterThan(0);
  });
});
