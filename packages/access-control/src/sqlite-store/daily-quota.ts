import type { DailyQuotaStore } from '../service-store/index.js';
import type { Row } from '../sql-store/rows.js';
import type { SqliteContext } from './context.js';

/** Reservations fail fast on a lock: the caller's deadline decides what happens then. */
const reservationLockWaitMs = 1000;

/** SQLite's reservation: `?` cannot be named twice, so the amount and the limit come twice. */
const reserveDailyTokens = `INSERT INTO daily_tokens (bucket, day, tokens) SELECT ?, ?, ? WHERE ? <= ?
  ON CONFLICT (bucket, day) DO UPDATE SET tokens = tokens + excluded.tokens WHERE daily_tokens.tokens + excluded.tokens <= ?
  RETURNING tokens`;

/** @internal */
export function createSqliteDailyQuota(context: SqliteContext): DailyQuotaStore {
  const { executor, statements, one } = context;
  return {
    async reserveDailyTokens({ bucket, day, tokens, limit }) {
      const [added, current] = await executor.execute(
        [
          { sql: reserveDailyTokens, params: [bucket, day, tokens, tokens, limit, limit], mode: 'get' },
          // Read only when refused: an admission's total comes back from the upsert itself.
          { sql: statements.readDailyTokens, params: [bucket, day], mode: 'get', ifPreviousNull: true },
        ],
        { transaction: true, lockWaitMs: reservationLockWaitMs },
      );
      if (added !== null) return { admitted: true, total: Number((added as Row).tokens) };
      return { admitted: false, total: current === null ? 0 : Number((current as Row).tokens) };
    },
    async addDailyTokens({ bucket, day, tokens }) {
      await executor.execute([{ sql: statements.addDailyTokens, params: [bucket, day, tokens], mode: 'run' }]);
    },
    async readDailyTokens({ bucket, day }) {
      const row = await one(statements.readDailyTokens, [bucket, day]);
      return row === null ? 0 : Number(row.tokens);
    },
  };
}
