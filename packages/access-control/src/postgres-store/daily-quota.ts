import type { DailyQuotaStore } from '../service-store/index.js';
import type { PostgresContext } from './context.js';

/**
 * PostgreSQL's reservation: one statement, its parameters typed (they are compared before any
 * column gives them a type). `commitMode` is a one-row query the insert reads, so that it runs
 * inside the statement's own transaction.
 */
const reservation = (commitMode: string) => `WITH commit_mode AS (${commitMode})
  INSERT INTO daily_tokens (bucket, day, tokens) SELECT $1, $2, $3::bigint FROM commit_mode WHERE $3::bigint <= $4::bigint
  ON CONFLICT (bucket, day) DO UPDATE SET tokens = daily_tokens.tokens + EXCLUDED.tokens WHERE daily_tokens.tokens + EXCLUDED.tokens <= $4::bigint
  RETURNING tokens`;

/** The reservation as the connection's settings commit it: it waits for its WAL flush when `synchronous_commit` says so. */
const reserveFlushed = reservation('SELECT 1');

/**
 * The reservation committed without waiting for its WAL flush: `synchronous_commit` off for its
 * own transaction only (`set_config(…, true)`, inside the statement: no extra round trip, and
 * the connection's next commit waits as configured again). Why: a reservation is not an
 * acknowledged answer, and the request's settled usage row, committed synchronously before its
 * answer, flushes the WAL up to itself and so past the reservation (PostgreSQL writes WAL in
 * order): every answered request's reservation is durable with its row, and the reservations
 * stop paying a flush of their own (decisions §6).
 */
const reserveFlushedBySettle = reservation("SELECT set_config('synchronous_commit', 'off', true)");

/** @internal */
export function createPostgresDailyQuota(context: PostgresContext): DailyQuotaStore {
  const { sql, migrate, statements, query, one } = context;
  const readDailyTokens: DailyQuotaStore['readDailyTokens'] = async ({ bucket, day }) => {
    const row = await one(statements.readDailyTokens, [bucket, day]);
    return row === undefined ? 0 : Number(row.tokens);
  };
  return {
    async reserveDailyTokens({ bucket, day, tokens, limit, flushedBySettle = false }) {
      await migrate();
      // Prepared: one round trip (a statement with parameters that is not is described first, a second one).
      const [added] = await sql.unsafe(flushedBySettle ? reserveFlushedBySettle : reserveFlushed, [bucket, day, tokens, limit], { prepare: true });
      if (added !== undefined) return { admitted: true, total: Number(added.tokens) };
      return { admitted: false, total: await readDailyTokens({ bucket, day }) };
    },
    async addDailyTokens({ bucket, day, tokens }) {
      await query(statements.addDailyTokens, [bucket, day, tokens]);
    },
    readDailyTokens,
  };
}
