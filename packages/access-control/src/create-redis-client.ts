import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

/** The longest any request may wait on Redis (decisions §6). */
export const maxRedisTimeoutMs = 100;

/**
 * How long a command may stay pending inside ioredis. Requests never wait this long: the
 * limiter stops waiting after its own `redisTimeoutMs` and undoes the command if it lands
 * later. A command that ioredis itself timed out cannot be undone (it may still run when a
 * paused Redis wakes up), so this is only a bound on memory, kept well above the request
 * deadline.
 */
const commandLifetimeMs = 10_000;

/**
 * An ioredis client set up so that nothing piles up behind a failing Redis: nothing queues
 * while disconnected (commands fail at once and the limiter falls back), no command is
 * retried, and pending commands expire. Reconnection goes on in the background.
 *
 * @example
 * const redis = createRedisClient('redis://127.0.0.1:6379');
 */
export function createRedisClient(url: string, options: { onError?: (error: unknown) => void } = {}): Redis {
  // Loaded on use: ioredis is an optional peer, needed only for shared limits.
  const ioredis = createRequire(import.meta.url)('ioredis') as { Redis: new (url: string, options: RedisOptions) => Redis };
  const client = new ioredis.Redis(url, {
    commandTimeout: commandLifetimeMs,
    connectTimeout: 1000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 1000),
  });
  // Without a listener ioredis prints every connection error; the circuit reports state changes.
  client.on('error', (error: unknown) => options.onError?.(error));
  return client;
}
