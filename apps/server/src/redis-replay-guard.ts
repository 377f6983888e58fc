import { createMemoryReplayGuard, type SignatureReplayGuard } from '@quantum-chat/core';
import { Redis } from 'ioredis';

export interface RedisReplayGuard extends SignatureReplayGuard {
  close(): Promise<void>;
}

/**
 * A signature replay guard shared by every instance through Redis: `SET <key> 1 NX PX <ttl>`
 * succeeds for the first use of a signature only. When Redis does not answer within 100 ms,
 * this instance's memory decides instead (as the rate limits fail open, decisions §6).
 * `onStateChange` hears of it once per outage (the first claim that met it), and once when a
 * claim reaches Redis again.
 *
 * @example
 * const guard = createRedisReplayGuard('redis://127.0.0.1:6379', (available) => log.warn({ available }, 'replay guard'));
 */
export function createRedisReplayGuard(url: string, onStateChange: (available: boolean, reason: unknown) => void): RedisReplayGuard {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, commandTimeout: 100 });
  redis.on('error', () => undefined); // reported per outage, not per reconnection attempt
  const fallback = createMemoryReplayGuard();
  let down = false;
  return {
    async claim(signature, ttlMs) {
      try {
        const claimed = (await redis.set(`quantum-chat:signature:${signature}`, '1', 'PX', ttlMs, 'NX')) === 'OK';
        if (down) {
          down = false;
          onStateChange(true, undefined);
        }
        return claimed;
      } catch (error) {
        if (!down) {
          down = true;
          onStateChange(false, error);
        }
        return fallback.claim(signature, ttlMs);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
