// What the SQLite store's concerns share: the worker that runs their SQL, the statements, the clock.
import type { StoreChange } from '../service-store/index.js';
import type { Row } from '../sql-store/rows.js';
import { sharedStatements, sqliteDialect, type SharedStatements } from '../sql-store/statements.js';
import type { SqliteExecutor } from '../sqlite-executor.js';

/** @internal */
export interface SqliteContext {
  executor: SqliteExecutor;
  statements: SharedStatements;
  now: () => number;
  /** This process's subscribers: they hear its own changes at once, not at the next poll. */
  listeners: Set<(change: StoreChange) => void>;
  one(sql: string, params?: readonly unknown[]): Promise<Row | null>;
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** @internal */
export function createSqliteContext(executor: SqliteExecutor, now: () => number): SqliteContext {
  return {
    executor,
    statements: sharedStatements(sqliteDialect),
    now,
    listeners: new Set(),
    one: async (sql, params = []) => (await executor.execute([{ sql, params, mode: 'get' }]))[0] as Row | null,
    all: async (sql, params = []) => (await executor.execute([{ sql, params, mode: 'all' }]))[0] as Row[],
  };
}

/** Tells this process's subscribers. @internal */
export function tell(context: SqliteContext, change: StoreChange): void {
  for (const listener of context.listeners) listener(change);
}

/** The context behind each SQLite service store, so that a response store can share its worker. */
const contexts = new WeakMap<object, SqliteContext>();

/** @internal */
export function rememberSqliteContext<T extends object>(store: T, context: SqliteContext): T {
  contexts.set(store, context);
  return store;
}

/** The context of a store made by `createSqliteStore`, or undefined. @internal */
export const sqliteContextOf = (store: object): SqliteContext | undefined => contexts.get(store);
