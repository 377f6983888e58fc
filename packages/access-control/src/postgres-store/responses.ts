import type { ServiceStore } from '../service-store/index.js';
import { purgeBatchSize, startResponsePurge } from '../sql-store/response-purge.js';
import { conversationItemsFromRows, inputItemsFromRows, responseItemRows, responseRowValues, storedResponseFromRows } from '../sql-store/response-rows.js';
import { responseItemColumns, responseStatements } from '../sql-store/response-statements.js';
import type { SqlResponseStore, SqlResponseStoreOptions } from '../sql-store/sql-response-store.js';
import { postgresDialect } from '../sql-store/statements.js';
import { createPostgresContext, postgresContextOf, type PostgresContext } from './context.js';

const statements = responseStatements(postgresDialect);

/** A response's items in one statement, whatever their number: one JSON array of rows (as the usage upsert does). */
const insertItems = `INSERT INTO response_items (${responseItemColumns.join(', ')})
  SELECT ${responseItemColumns.join(', ')} FROM json_populate_recordset(NULL::response_items, $1::text::json)`;

const itemsAsJson = (rows: unknown[][]) => JSON.stringify(rows.map((values) => Object.fromEntries(responseItemColumns.map((column, index) => [column, values[index]]))));

/**
 * The Responses API's stored responses (decisions §10) in the PostgreSQL database of a
 * `createPostgresStore` (sharing its pool), or in a database of its own (a URL). Every instance
 * sharing the database reads every response. Expired responses read as absent and are deleted
 * in bounded batches every `purgeIntervalMs`; `close` stops that (and ends the pool it opened).
 *
 * @example
 * const store = createPostgresStore(process.env.DATABASE_URL!);
 * const responseStore = createPostgresResponseStore(store);
 */
export function createPostgresResponseStore(source: ServiceStore | string, options: SqlResponseStoreOptions = {}): SqlResponseStore {
  const owned = typeof source === 'string';
  const context: PostgresContext | undefined = owned ? createPostgresContext(source, { now: Date.now, maxConnections: 4 }) : postgresContextOf(source);
  if (context === undefined) throw new TypeError('createPostgresResponseStore needs a store made by createPostgresStore, or a postgres:// URL.');
  const { sql, migrate, query, one } = context;
  const now = options.now ?? context.now;

  async function purgeExpired(): Promise<number> {
    return (await query(`${statements.purgeExpired} RETURNING 1`, [now(), purgeBatchSize])).length;
  }
  const purge = startResponsePurge(purgeExpired, options.purgeIntervalMs ?? 60_000);

  return {
    async save(record) {
      await migrate();
      const items = responseItemRows(record);
      await sql.begin(async (tx) => {
        await tx.unsafe(statements.upsertResponse, responseRowValues(record) as never[], { prepare: true });
        await tx.unsafe(statements.deleteItems, [record.response.id], { prepare: true });
        if (items.length > 0) await tx.unsafe(insertItems, [itemsAsJson(items)], { prepare: true });
      });
    },
    async get(id, owner) {
      const row = await one(statements.selectResponse, [id, owner, now()]);
      if (row === undefined) return undefined;
      return storedResponseFromRows(row, owner, await query(statements.selectInputItems, [id]));
    },
    async delete(id, owner) {
      return (await query(`${statements.deleteResponse} RETURNING 1`, [id, owner, now()])).length > 0;
    },
    async findItems(ids, owner) {
      if (ids.length === 0) return new Map();
      return conversationItemsFromRows(await query(statements.findItems, [owner, JSON.stringify([...new Set(ids)]), now()]));
    },
    async listInputItems(id, owner, { after, limit, order }) {
      if ((await one(statements.responseExists, [id, owner, now()])) === undefined) return undefined;
      const page = order === 'asc' ? statements.inputPageAscending : statements.inputPageDescending;
      const rows = await query(page, [id, after ?? null, id, after ?? null, limit + 1]);
      return { items: inputItemsFromRows(rows.slice(0, limit)), hasMore: rows.length > limit };
    },
    purgeExpired,
    async close() {
      await purge.stop();
      if (owned) await context.sql.end({ timeout: 1 });
    },
  };
}
