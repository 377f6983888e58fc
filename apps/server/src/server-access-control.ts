import { createAccessControl, createLimiter, type ServiceStore, type Limiter, type SqlResponseStore, type StoreAccessControl } from '@quantum-chat/access-control';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from './config-schema.js';
import { describeStore, openResponseStore, openStore } from './open-store.js';

export interface ServerAccessControl {
  accessControl: StoreAccessControl;
  store: ServiceStore;
  /** The Responses API's stored responses, in the same database. */
  responseStore: SqlResponseStore;
  limiter: Limiter;
  close(): Promise<void>;
}

export interface ServerAccessControlOptions {
  /** Where a relative `dataDir` is resolved. */
  cwd: string;
  log: FastifyBaseLogger;
  /** ms since the epoch, for the store's times, key expiry and usage; `Date.now` by default. */
  now?: () => number;
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
 * The ready server's keys and limits: the store the config names (PostgreSQL with
 * `DATABASE_URL` / `databaseUrl`, else SQLite in the data directory), migrated at start (and
 * seeded only once the server listens: see starter-keys.ts); limits in memory or, with
 * `REDIS_URL` / `redisUrl`, shared through Redis.
 *
 * @example
 * const access = await openServerAccessControl(config, { cwd: process.cwd(), log: app.log });
 */
export async function openServerAccessControl(config: ServerConfig, options: ServerAccessControlOptions): Promise<ServerAccessControl> {
  const { log } = options;
  const store = openStore(config, options.cwd, options.now !== undefined ? { now: options.now } : {});
  try {
    const { from, to } = await store.migrate();
    log.info({ store: describeStore(config, options.cwd), schema: to, ...(from !== to ? { migratedFrom: from } : {}) }, 'store ready');
  } catch (error) {
    await store.close().catch(() => undefined);
    throw new Error(`The store at ${describeStore(config, options.cwd)} cannot be opened: ${(error as Error).message}`, { cause: error });
  }
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
  const accessControl = createAccessControl({
    store,
    limiter,
    failClosed: config.limits.failClosed,
    dailyLeases: config.limits.dailyLeases ?? false,
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(config.store.timeoutMs !== undefined ? { storeTimeoutMs: config.store.timeoutMs } : {}),
    usage: {
      ...(config.store.usageFlushIntervalMs !== undefined ? { flushIntervalMs: config.store.usageFlushIntervalMs } : {}),
      ...(config.store.abandonedAfterMs !== undefined ? { abandonedAfterMs: config.store.abandonedAfterMs } : {}),
      ...(config.store.usageWrites !== undefined ? { durable: config.store.usageWrites === 'durable' } : {}),
      ...(config.store.usageCommitTimeoutMs !== undefined ? { commitTimeoutMs: config.store.usageCommitTimeoutMs } : {}),
      onWriteError: (error, pending) => log.warn({ err: error, pending }, 'usage rows not written; retrying'),
      onRecovered: (written) => log.info({ written }, 'usage rows written again'),
      onDropped: (_count, total) => log.error({ dropped: total }, 'usage buffer full: oldest usage rows dropped'),
    },
    onError: (error) => log.error({ err: error }, 'settling usage failed'),
    onStoreStateChange: (available, what, reason) => {
      if (available) log.info({ what }, 'store answers again');
      else log.warn({ err: reason, what }, what === 'keys' ? 'store not answering: cached keys keep working, others get 503' : 'store not answering: daily quotas counted per instance until it is back');
    },
  });
  const responseStore = openResponseStore(store, config, options.now !== undefined ? { now: options.now } : {});
  return {
    accessControl,
    store,
    responseStore,
    limiter,
    async close() {
      await accessControl.close();
      await limiter.close();
      await responseStore.close();
      await store.close();
    },
  };
}
