import { createAccessControl, createLimiter, type KeyStore, type Limiter, type StoreAccessControl } from '@quantum-chat/access-control';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from './config-schema.js';
import { cacheKeyLookups } from './key-lookup-cache.js';
import { openKeyStore } from './key-store-location.js';
import { seedDefaultOrganisation } from './seed-default-organisation.js';

export interface ServerAccessControl {
  accessControl: StoreAccessControl;
  store: KeyStore;
  limiter: Limiter;
  close(): Promise<void>;
}

export interface ServerAccessControlOptions {
  /** Where a relative `dataDir` is resolved. */
  cwd: string;
  log: FastifyBaseLogger;
  /** Called once with the test key made on first start (an empty store): show it once. */
  onFirstStartKey?: (key: string) => void;
}

/** A Redis URL fit for logs: host and port, never a password. */
function describeRedis(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'redis';
  }
}

/**
 * The ready server's keys and limits: the SQLite store in the data directory (seeded with a
 * `default` organisation and a test key on first start), and limits in memory or, with
 * `REDIS_URL` / `redisUrl`, shared through Redis.
 *
 * @example
 * const access = await openServerAccessControl(config, { cwd: process.cwd(), log: app.log });
 */
export async function openServerAccessControl(config: ServerConfig, options: ServerAccessControlOptions): Promise<ServerAccessControl> {
  const { log } = options;
  const store = openKeyStore(config, options.cwd);
  const firstKey = await seedDefaultOrganisation(store);
  if (firstKey !== undefined) options.onFirstStartKey?.(firstKey);
  const redis = config.redisUrl;
  const limiter = createLimiter({
    ...(redis !== undefined ? { redis } : {}),
    failClosed: config.limits.failClosed,
    ...(config.limits.redisTimeoutMs !== undefined ? { redisTimeoutMs: config.limits.redisTimeoutMs } : {}),
    // Reconnection attempts fail repeatedly while Redis is down: debug only.
    onRedisError: (error) => log.debug({ err: error }, 'redis error'),
    onRedisStateChange: (available, reason) => {
      if (available) log.info('redis is back: rate limits are shared again');
      else log.warn({ err: reason, failClosed: config.limits.failClosed }, config.limits.failClosed ? 'redis unavailable: chat requests get 503' : 'redis unavailable: rate limits are per instance until it is back');
    },
  });
  if (redis !== undefined) {
    const ready = await limiter.ready();
    if (ready) log.info({ redis: describeRedis(redis) }, 'rate limits shared through redis');
    else log.warn({ redis: describeRedis(redis) }, 'redis not reachable at start');
  }
  // Key lookups from memory for up to 1 s (revocations by the CLI apply within that); see key-lookup-cache.ts.
  const accessControl = createAccessControl({ store: cacheKeyLookups(store), limiter, onError: (error) => log.error({ err: error }, 'settling usage failed') });
  return {
    accessControl,
    store,
    limiter,
    async close() {
      await limiter.close();
      await store.close();
    },
  };
}
