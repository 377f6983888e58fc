import { createMemoryReplayGuard, type SignatureReplayGuard } from '@quantum-chat/core';
import { replayGuardFull } from '@quantum-chat/core/host';
import { Redis } from 'ioredis';

export interface RedisReplayGuard extends SignatureReplayGuard {
  close(): Promise<void>;
}

export interface RedisReplayGuardOptions {
  /** How many claims this instance's memory holds while Redis is away (100,000 by default). */
  fallbackMaxEntries?: number;
}

/** Redis under `maxmemory` with `noeviction` refuses writes with `OOM …`: it is full, not away. */
function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('OOM ');
}

/**
 * A signature replay guard shared by every instance through Redis: `SET <key> 1 NX PX <ttl>`
 * succeeds for the first claim of signed content only. When Redis does not answer within
 * 100 ms, this instance's memory decides instead (as the rate limits fail open, decisions §6).
 * A Redis that answers it is out of memory is full: the claim is refused with 503, since
 * memory that never saw Redis's claims could not tell a replay. `onStateChange` hears of an
 * outage once (the first claim that met it), and once when a claim reaches Redis again.
 *
 * @example
 * const guard = createRedisReplayGuard('redis://127.0.0.1:6379', (available) => log.warn({ available }, 'replay guard'));
 */
export function createRedisReplayGuard(url: string, onStateChange: (available: boolean, reason: unknown) => void, options: RedisReplayGuardOptions = {}): RedisReplayGuard {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, commandTimeout: 100 });
  redis.on('error', () => undefined); // reported per outage, not per reconnection attempt
  const fallback = createMemoryReplayGuard(options.fallbackMaxEntries !== undefined ? { maxEntries: options.fallbackMaxEntries } : {});
  let down = false;
  return {
    async claim(claim, ttlMs) {
      try {
        const claimed = (await redis.set(`quantum-chat:signature:${claim}`, '1', 'PX', ttlMs, 'NX')) === 'OK';
        if (down) {
          down = false;
          onStateChange(true, undefined);
        }
        return claimed;
      } catch (error) {
        if (isOutOfMemory(error)) throw replayGuardFull(1000);
        if (!down) {
          down = true;
          onStateChange(false, error);
        }
        return fallback.claim(claim, ttlMs);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
