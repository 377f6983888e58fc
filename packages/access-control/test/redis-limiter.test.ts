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
    const [first, second] = [await open(), await open()];
    expect(first!.backend).toBe('redis');
    const decisions = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 ? first! : second!).reserve('acme:live', limits, 10)));
    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(5);
    expect(await redisCount('requests', 'acme:live')).toBe(5);
    expect(await redisCount('tokens', 'acme:live')).toBe(50);
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

  it('should fail open onto memory within 100 ms when Redis is killed, and go back to Redis when it returns', async () => {
    const limiter = await open();
    await limiter.reserve('acme:live', limits, 1);
    await redis.kill();
    const latencies: number[] = [];
    for (let index = 0; index < 8; index++) {
      const { value, ms } = await timed(() => limiter.reserve('acme:live', limits, 1));
      latencies.push(ms);
      // The per-process fallback counts on its own: 5 per minute here too.
      expect(value.admitted).toBe(index < 5);
    }
    expect(Math.max(...latencies)).toBeLessThan(100);
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

  it('should fail open within 100 ms when Redis stops answering (SIGSTOP), and undo the late counts', async () => {
    const limiter = await open();
    for (let index = 0; index < 2; index++) await limiter.reserve('acme:live', limits, 1);
    redis.pause();
    const latencies: number[] = [];
    for (let index = 0; index < 6; index++) latencies.push((await timed(() => limiter.reserve('acme:live', limits, 1))).ms);
    // Only the first waits (up to the 50 ms timeout); the circuit spares the rest.
    expect(Math.max(...latencies)).toBeLessThan(100);
    expect(latencies.slice(1).every((ms) => ms < 20)).toBe(true);
    redis.resume();
    await until(async () => (await redisCount('requests', 'acme:live')) === 2 && (await redisCount('tokens', 'acme:live')) === 2);
    await sleep(100);
    expect(await redisCount('requests', 'acme:live')).toBe(2);
  });

  it('should never wait longer than 100 ms, whatever timeout is asked for', async () => {
    const limiter = await open({ redisTimeoutMs: 5000 });
    redis.pause();
    const { ms } = await timed(() => limiter.reserve('acme:live', limits, 1));
    expect(ms).toBeLessThan(150);
    redis.resume();
  });

  it('should answer 503 engine_unavailable at once when failing closed', async () => {
    const limiter = await open({ failClosed: true });
    await redis.kill();
    const { value, ms } = await timed(() => limiter.reserve('acme:live', limits, 1).catch((error: unknown) => error));
    expect(ms).toBeLessThan(100);
    expect(QuantumChatError.isInstance(value) && value.code).toBe('engine_unavailable');
    expect((value as QuantumChatError).status).toBe(503);
  });

  it('should answer 503 within 100 ms when failing closed and Redis is paused', async () => {
    const limiter = await open({ failClosed: true });
    redis.pause();
    for (let index = 0; index < 3; index++) {
      const { value, ms } = await timed(() => limiter.reserve('acme:live', limits, 1).catch((error: unknown) => error));
      expect(ms).toBeLessThan(100);
      expect((value as QuantumChatError).code).toBe('engine_unavailable');
    }
    redis.resume();
  });

  it('should settle without throwing when Redis died after the reservation', async () => {
    const errors: unknown[] = [];
    const limiter = await open({ onRedisError: (error) => errors.push(error) });
    const decision = await limiter.reserve('acme:live', limits, 500);
    if (!decision.admitted) throw new Error('refused');
    await redis.kill();
    const { ms } = await timed(() => decision.settle(10));
    expect(ms).toBeLessThan(100);
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

