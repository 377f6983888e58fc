import { QuantumChatError } from '@quantum-chat/core';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLimiter, type Limiter } from '../src/create-limiter.js';
import type { Limits } from '../src/plan-limits.js';
import { redisServerAvailable, redisSkipMessage, startRedisServer, type RedisServer } from './redis-server.js';

if (!redisServerAvailable) console.warn(redisSkipMessage);

const limits: Limits = { requestsPerMinute: 5, tokensPerMinute: 100_000, tokensPerDay: 1_000_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe.skipIf(!redisServerAvailable)('createLimiter (Redis)', () => {
  let redis: RedisServer;
  let limiters: Limiter[];
  let inspector: Redis;
  const open = async (options: Parameters<typeof createLimiter>[0] = {}) => {
    const limiter = createLimiter({ redis: redis.url, keyPrefix: 'test', ...options });
    limiters.push(limiter);
    expect(await limiter.ready()).toBe(true);
    return limiter;
  };
  const redisCount = async (dimension: string, bucket: string) => Number((await inspector.get(`test:${dimension}:${bucket}`)) ?? 0);
  /** Lua script runs Redis has executed (every count, refund and undo is one). */
  const scriptRuns = async () => {
    const stats = await inspector.info('commandstats');
    return [...stats.matchAll(/^cmdstat_(?:eval|evalsha):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
  };
  /** Every switch of a limiter between Redis (`true`) and its fallback (the reason). */
  const watch = () => {
    const changes: unknown[] = [];
    return { changes, onRedisStateChange: (available: boolean, reason: unknown) => changes.push(available || reason) };
  };
  const figures = (values: number[]) => values.map((ms) => ms.toFixed(1)).join(', ');

  beforeEach(async () => {
    redis = await startRedisServer();
    limiters = [];
    inspector = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    inspector.on('error', () => undefined);
  });

  afterEach(async () => {
    await Promise.all(limiters.map((limiter) => limiter.close()));
    inspector.disconnect();
    await redis.stop();
  });

  it('should share one count between limiters (server instances) and never admit more than the limit', async () => {
    const { changes, onRedisStateChange } = watch();
    const [first, second] = [await open({ onRedisStateChange }), await open({ onRedisStateChange })];
    expect(first!.backend).toBe('redis');
    // On a loaded machine Redis may miss the 50 ms deadline; the limiter then counts in memory
    // (fail-open), which proves nothing about sharing: such a burst is repeated on a fresh bucket.
    for (let attempt = 1; ; attempt++) {
      const bucket = `acme-${attempt}:live`;
      await Promise.all([first!.ping(), second!.ping()]);
      const before = changes.length;
      const decisions = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 ? first! : second!).reserve(bucket, limits, 10)));
      if (changes.length > before && attempt < 3) continue;
      expect(changes.slice(before)).toEqual([]);
      expect(decisions.filter((decision) => decision.admitted)).toHaveLength(5);
      expect(await redisCount('requests', bucket)).toBe(5);
      expect(await redisCount('tokens', bucket)).toBe(50);
      break;
    }
  });

  it('should settle reservations in Redis', async () => {
    const limiter = await open();
    const decision = await limiter.reserve('acme:live', limits, 4000);
    if (!decision.admitted) throw new Error('refused');
    expect(await redisCount('tokens', 'acme:live')).toBe(4000);
    await decision.settle(321);
    expect(await redisCount('tokens', 'acme:live')).toBe(321);
    expect(await redisCount('daily-tokens', 'acme:live')).toBe(321);
  });

  it('should fail open onto memory when Redis is killed, and go back to Redis when it returns', async () => {
    const { changes, onRedisStateChange } = watch();
    const limiter = await open({ onRedisStateChange });
    await redis.kill();
    const latencies: number[] = [];
    for (let index = 0; index < 8; index++) {
      const { value, ms } = await timed(() => limiter.reserve('acme:live', limits, 1));
      latencies.push(ms);
      // The per-process fallback counts on its own: 5 per minute here too.
      expect(value.admitted).toBe(index < 5);
    }
    // One switch to memory: the first failure opened the circuit, the rest did not try Redis.
    expect(changes).toHaveLength(1);
    console.info(`Redis killed: reservations took ${figures(latencies)} ms`);
    await redis.restart();
    await until(async () => {
      await limiter.reserve('acme:test', limits, 1);
      return (await redisCount('requests', 'acme:test').catch(() => 0)) > 0;
    });
  });

  it('should count in Redis again as soon as a ping is answered (a readiness check that passed means shared limits)', async () => {
    const changes: boolean[] = [];
    const limiter = await open({ onRedisStateChange: (available) => changes.push(available) });
    await redis.kill();
    expect((await limiter.reserve('acme:live', limits, 1)).admitted).toBe(true);
    expect(changes).toEqual([false]);
    await expect(limiter.ping()).rejects.toThrow();
    await redis.restart();
    await until(() => limiter.ping().then(() => true, () => false));
    expect(changes).toEqual([false, true]);
    await limiter.reserve('acme:live', limits, 1);
    expect(await redisCount('requests', 'acme:live')).toBe(1);
  });

  it('should fail open when Redis stops answering (SIGSTOP): one reservation waits out the deadline, the rest skip Redis, late counts are undone', async () => {
    const { changes, onRedisStateChange } = watch();
    const limiter = await open({ onRedisStateChange });
    const runsBefore = await scriptRuns();
    redis.pause();
    const latencies: number[] = [];
    for (let index = 0; index < 6; index++) latencies.push((await timed(() => limiter.reserve('acme:live', limits, 1))).ms);
    // The first gave up at the 50 ms deadline (the default) and opened the circuit.
    expect(changes).toEqual([new Error('Redis did not answer within 50 ms.')]);
    redis.resume();
    // What Redis ran once it woke up: the first reservation's count in each of the 3 windows and
    // their undo, nothing of the 5 after it (the circuit sent them straight to memory).
    await until(async () => (await scriptRuns()) - runsBefore >= 3 + 3);
    await sleep(100);
    expect((await scriptRuns()) - runsBefore).toBe(3 + 3);
    expect(await redisCount('requests', 'acme:live')).toBe(0);
    expect(await redisCount('tokens', 'acme:live')).toBe(0);
    console.info(`Redis paused: reservations took ${figures(latencies)} ms`);
  });

  it('should never wait longer than 100 ms, whatever timeout is asked for', async () => {
    const { changes, onRedisStateChange } = watch();
    const limiter = await open({ redisTimeoutMs: 5000, onRedisStateChange });
    redis.pause();
    const { value, ms } = await timed(() => limiter.reserve('acme:live', limits, 1));
    redis.resume();
    expect(value.admitted).toBe(true);
    // The deadline it waited for: the 100 ms ceiling, not the 5 s asked for.
    expect(changes).toEqual([new Error('Redis did not answer within 100 ms.')]);
    console.info(`Redis paused, 5000 ms asked: the reservation took ${ms.toFixed(1)} ms`);
  });

  it('should answer 503 engine_unavailable at once when failing closed', async () => {
    const { changes, onRedisStateChange } = watch();
    const limiter = await open({ failClosed: true, onRedisStateChange });
    await redis.kill();
    const first = await timed(() => limiter.reserve('acme:live', limits, 1).catch((error: unknown) => error));
    expect(QuantumChatError.isInstance(first.value) && first.value.code).toBe('engine_unavailable');
    expect((first.value as QuantumChatError).status).toBe(503);
    expect(changes).toHaveLength(1);
    console.info(`Redis killed, failing closed: 503 after ${first.ms.toFixed(1)} ms`);
  });

  it('should answer 503 once the deadline passed when failing closed and Redis is paused, and at once after', async () => {
    const { changes, onRedisStateChange } = watch();
    const limiter = await open({ failClosed: true, onRedisStateChange });
    const runsBefore = await scriptRuns();
    redis.pause();
    const latencies: number[] = [];
    for (let index = 0; index < 3; index++) {
      const { value, ms } = await timed(() => limiter.reserve('acme:live', limits, 1).catch((error: unknown) => error));
      latencies.push(ms);
      expect((value as QuantumChatError).code).toBe('engine_unavailable');
    }
    expect(changes).toEqual([new Error('Redis did not answer within 50 ms.')]);
    redis.resume();
    // Only the first reservation reached Redis (its 3 counts, then their undo).
    await until(async () => (await scriptRuns()) - runsBefore === 6);
    await sleep(100);
    expect((await scriptRuns()) - runsBefore).toBe(6);
    console.info(`Redis paused, failing closed: 503 after ${figures(latencies)} ms`);
  });

  it('should settle without throwing when Redis died after the reservation', async () => {
    const errors: unknown[] = [];
    const limiter = await open({ onRedisError: (error) => errors.push(error) });
    const decision = await limiter.reserve('acme:live', limits, 500);
    if (!decision.admitted) throw new Error('refused');
    await redis.kill();
    // Resolves (never rejects), whatever Redis does.
    const { ms } = await timed(() => decision.settle(10));
    console.info(`Redis killed: settling took ${ms.toFixed(1)} ms`);
  });

  it('should report where a bucket stands', async () => {
    const limiter = await open();
    await limiter.reserve('acme:live', limits, 70);
    expect(await limiter.read('acme:live', limits)).toMatchObject({ requests: { used: 1, remaining: 4 }, tokens: { used: 70 } });
  });

  it('should report a Redis killed while idle once per outage, and once when it is back, without a request to notice', async () => {
    const changes: boolean[] = [];
    await open({ onRedisStateChange: (available) => changes.push(available) });
    await redis.kill();
    await until(async () => changes.length > 0);
    // Reconnection attempts go on meanwhile; they are not reported again.
    await sleep(1500);
    expect(changes).toEqual([false]);
    await redis.restart();
    await until(async () => changes.length > 1);
    await sleep(500);
    expect(changes).toEqual([false, true]);
    // A second outage is a second report.
    await redis.kill();
    await until(async () => changes.length > 2);
    expect(changes).toEqual([false, true, false]);
  });
});

