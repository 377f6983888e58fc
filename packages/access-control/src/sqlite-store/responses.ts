import type { ServiceStore } from '../service-store/index.js';
import { purgeBatchSize, startResponsePurge } from '../sql-store/response-purge.js';
import { conversationItemsFromRows, inputItemsFromRows, responseItemRows, responseRowValues, storedResponseFromRows } from '../sql-store/response-rows.js';
import { responseItemColumns, responseStatements } from '../sql-store/response-statements.js';
import type { Row } from '../sql-store/rows.js';
import type { SqlResponseStore, SqlResponseStoreOptions } from '../sql-store/sql-response-store.js';
import { sqliteDialect } from '../sql-store/statements.js';
import { startSqliteExecutor } from '../sqlite-executor.js';
import { createSqliteContext, sqliteContextOf, type SqliteContext } from './context.js';
import { sqliteMigrations } from './migrations.js';

/** Purges wait little for another process's write lock: the next tick tries again. */
const purgeLockWaitMs = 250;

const statements = responseStatements(sqliteDialect);
const insertItem = `INSERT INTO response_items (${responseItemColumns.join(', ')}) VALUES (${responseItemColumns.map(() => '?').join(', ')})`;

/**
 * The Responses API's stored responses (decisions §10) in the SQLite file of a
 * `createSqliteStore` (sharing its worker thread: no query runs on the event loop), or in a
 * file of their own. Expired responses read as absent and are deleted in bounded batches
 * every `purgeIntervalMs`; `close` stops that (and closes the file when it opened it).
 *
 * @example
 * const store = createSqliteStore('.data/quantum-chat.sqlite');
 * const responseStore = createSqliteResponseStore(store);
 */
export function createSqliteResponseStore(source: ServiceStore | string, options: SqlResponseStoreOptions = {}): SqlResponseStore {
  const owned = typeof source === 'string';
  const context: SqliteContext | undefined = owned ? createSqliteContext(startSqliteExecutor(source, sqliteMigrations), Date.now) : sqliteContextOf(source);
  if (context === undefined) throw new TypeError('createSqliteResponseStore needs a store made by createSqliteStore, or a file path.');
  const { executor, one, all } = context;
  const now = options.now ?? context.now;

  async function purgeExpired(): Promise<number> {
    const [result] = await executor.execute([{ sql: statements.purgeExpired, params: [now(), purgeBatchSize], mode: 'run' }], { lockWaitMs: purgeLockWaitMs });
    return (result as { changes: number }).changes;
  }
  const purge = startResponsePurge(purgeExpired, options.purgeIntervalMs ?? 60_000);

  return {
    async save(record) {
      await executor.execute(
        [
          { sql: statements.upsertResponse, params: responseRowValues(record), mode: 'run' },
          { sql: statements.deleteItems, params: [record.response.id], mode: 'run' },
          { sql: insertItem, rows: responseItemRows(record), mode: 'runEach' },
        ],
        { transaction: true },
      );
    },
    async get(id, owner) {
      const [row, items] = await executor.execute([
        { sql: statements.selectResponse, params: [id, owner, now()], mode: 'get' },
        { sql: statements.selectInputItems, params: [id], mode: 'all' },
      ]);
      return row === null ? undefined : storedResponseFromRows(row as Row, owner, items as Row[]);
    },
    async delete(id, owner) {
      const [result] = await executor.execute([{ sql: statements.deleteResponse, params: [id, owner, now()], mode: 'run' }]);
      return (result as { changes: number }).changes > 0;
    },
    async findItems(ids, owner) {
      if (ids.length === 0) return new Map();
      return conversationItemsFromRows(await all(statements.findItems, [owner, JSON.stringify([...new Set(ids)]), now()]));
    },
    async listInputItems(id, owner, { after, limit, order }) {
      if ((await one(statements.responseExists, [id, owner, now()])) === null) return undefined;
      const page = order === 'asc' ? statements.inputPageAscending : statements.inputPageDescending;
      const rows = await all(page, [id, after ?? null, id, after ?? null, limit + 1]);
      return { items: inputItemsFromRows(rows.slice(0, limit)), hasMore: rows.length > limit };
    },
    purgeExpired,
    async close() {
      await purge.stop();
      if (owned) await executor.close();
    },
  };
}
