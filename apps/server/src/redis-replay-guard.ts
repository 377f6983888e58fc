import { createMemoryReplayGuard, type SignatureReplayGuard } from '@quantum-chat/core';
import { Redis } from 'ioredis';

export interface RedisReplayGuard extends SignatureReplayGuard {
  close(): Promise<void>;
}

/**
 * A signature replay guard shared by every instance through Redis: `SET <key> 1 NX PX <ttl>`
 * succeeds for the first use of a signature only. When Redis does not answer within 100 ms,
 * this instance's memory decides instead (as the rate limits fail open, decisions §6), and
 * `onError` is told.
 *
 * @example
 * const guard = createRedisReplayGuard('redis://127.0.0.1:6379', (error) => log.warn({ err: error }, 'replay guard'));
 */
export function createRedisReplayGuard(url: string, onError: (error: unknown) => void): RedisReplayGuard {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, commandTimeout: 100 });
  redis.on('error', () => undefined); // reported per claim, not per reconnection attempt
  const fallback = createMemoryReplayGuard();
  return {
    async claim(signature, ttlMs) {
      try {
        return (await redis.set(`quantum-chat:signature:${signature}`, '1', 'PX', ttlMs, 'NX')) === 'OK';
      } catch (error) {
        onError(error);
        return fallback.claim(signature, ttlMs);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
