import type { ServiceStore } from '../service-store/index.js';
import { startSqliteExecutor } from '../sqlite-executor.js';
import { createSqliteAuditLog } from './audit.js';
import { createSqliteChangeFeed } from './changes.js';
import { createSqliteContext, rememberSqliteContext } from './context.js';
import { createSqliteDailyQuota } from './daily-quota.js';
import { createSqliteKeys } from './keys.js';
import { sqliteMigrations } from './migrations.js';
import { createSqliteOrganisations } from './organisations.js';
import { createSqliteUsageLedgerReads } from './usage-ledger-reads.js';
import { createSqliteUsageLedgerWrites } from './usage-ledger-writes.js';

export interface SqliteStoreOptions {
  now?: () => number;
  /** How often other processes' changes to keys and organisations are read; 100 ms by default. */
  changePollMs?: number;
}

/** @deprecated Renamed `SqliteStoreOptions`. */
export type SqliteKeyStoreOptions = SqliteStoreOptions;

/**
 * The embedded store: one SQLite file (better-sqlite3 in a worker thread, WAL), safe to share
 * between several server processes on one machine. No call blocks the event loop, even while
 * another process holds the write lock: the worker retries the write and answers reads
 * meanwhile. The schema is migrated on first use; the file is created readable by its owner
 * only (0600).
 *
 * @example
 * const store = createSqliteStore('.data/quantum-chat.sqlite');
 */
export function createSqliteStore(path: string, options: SqliteStoreOptions = {}): ServiceStore {
  const executor = startSqliteExecutor(path, sqliteMigrations);
  const context = createSqliteContext(executor, options.now ?? Date.now);
  const changes = createSqliteChangeFeed(context, options.changePollMs ?? 100);
  return rememberSqliteContext({
    migrate: () => executor.migrate(),
    async ping() {
      await context.one(context.statements.ping);
    },
    async close() {
      changes.stop();
      context.listeners.clear();
      await executor.close();
    },
    ...createSqliteOrganisations(context),
    ...createSqliteKeys(context),
    ...createSqliteUsageLedgerWrites(context),
    ...createSqliteUsageLedgerReads(context),
    ...createSqliteAuditLog(context),
    ...createSqliteDailyQuota(context),
    subscribe: changes.subscribe,
  }, context);
}

/**
 * @deprecated Renamed `createSqliteStore`.
 * @alias
 */
export const createSqliteKeyStore = createSqliteStore;
