import type { ServiceStore } from '../service-store/index.js';
import { createPostgresAuditLog } from './audit.js';
import { createPostgresChangeFeed } from './changes.js';
import { createPostgresContext, rememberPostgresContext } from './context.js';
import { createPostgresDailyQuota } from './daily-quota.js';
import { createPostgresKeys } from './keys.js';
import { createPostgresOrganisations } from './organisations.js';
import { createPostgresUsageLedgerReads } from './usage-ledger-reads.js';
import { createPostgresUsageLedgerWrites } from './usage-ledger-writes.js';

export interface PostgresStoreOptions {
  now?: () => number;
  /** Connections in the pool; 10 by default. */
  maxConnections?: number;
  /** Reporting only: the change listener's connection lost or back. */
  onListenerStateChange?: (listening: boolean) => void;
}

/** @deprecated Renamed `PostgresStoreOptions`. */
export type PostgresKeyStoreOptions = PostgresStoreOptions;

/**
 * The store for several hosts: PostgreSQL through the `postgres` driver (an optional peer
 * dependency). Migrations run on first use (and by `migrate()`), serialised by an advisory lock
 * so that instances starting together do not race. Daily counts are atomic conditional
 * updates; key and organisation changes reach every instance through `LISTEN/NOTIFY`.
 *
 * @example
 * const store = createPostgresStore(process.env.DATABASE_URL!);
 */
export function createPostgresStore(url: string, options: PostgresStoreOptions = {}): ServiceStore {
  const context = createPostgresContext(url, { now: options.now ?? Date.now, maxConnections: options.maxConnections ?? 10 });
  const changes = createPostgresChangeFeed(context, options.onListenerStateChange);
  return rememberPostgresContext({
    migrate: context.runMigrations,
    async ping() {
      await context.query(context.statements.ping);
    },
    async close() {
      changes.stop();
      context.listeners.clear();
      await context.sql.end({ timeout: 1 });
    },
    ...createPostgresOrganisations(context),
    ...createPostgresKeys(context),
    ...createPostgresUsageLedgerWrites(context),
    ...createPostgresUsageLedgerReads(context),
    ...createPostgresAuditLog(context),
    ...createPostgresDailyQuota(context),
    subscribe: changes.subscribe,
  }, context);
}

/**
 * @deprecated Renamed `createPostgresStore`.
 * @alias
 */
export const createPostgresKeyStore = createPostgresStore;
