import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

/** The longest any request may wait on Redis (decisions §6). */
export const maxRedisTimeoutMs = 100;

/**
 * An ioredis client set up so that no request hangs on it: commands time out after
 * `timeoutMs`, nothing queues while disconnected (commands fail at once and the limiter falls
 * back), and no command is retried. Reconnection goes on in the background.
 *
 * @example
 * const redis = createRedisClient('redis://127.0.0.1:6379', { timeoutMs: 50 });
 */
export function createRedisClient(url: string, options: { timeoutMs: number; onError?: (error: unknown) => void }): Redis {
  // Loaded on use: ioredis is an optional peer, needed only for shared limits.
  const ioredis = createRequire(import.meta.url)('ioredis') as { Redis: new (url: string, options: RedisOptions) => Redis };
  const client = new ioredis.Redis(url, {
    commandTimeout: options.timeoutMs,
    connectTimeout: 1000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 1000),
  });
  // Without a listener ioredis prints every connection error; the circuit reports state changes.
  client.on('error', (error: unknown) => options.onError?.(error));
  return client;
}
