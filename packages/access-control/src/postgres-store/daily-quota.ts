import type { DailyQuotaStore } from '../service-store/index.js';
import type { PostgresContext } from './context.js';

/** PostgreSQL's reservation: one statement, its parameters typed (they are compared before any column gives them a type). */
const reserveDailyTokens = `INSERT INTO daily_tokens (bucket, day, tokens) SELECT $1, $2, $3::bigint WHERE $3::bigint <= $4::bigint
  ON CONFLICT (bucket, day) DO UPDATE SET tokens = daily_tokens.tokens + EXCLUDED.tokens WHERE daily_tokens.tokens + EXCLUDED.tokens <= $4::bigint
  RETURNING tokens`;

/** @internal */
export function createPostgresDailyQuota(context: PostgresContext): DailyQuotaStore {
  const { statements, query, one } = context;
  const readDailyTokens: DailyQuotaStore['readDailyTokens'] = async ({ bucket, day }) => {
    const row = await one(statements.readDailyTokens, [bucket, day]);
    return row === undefined ? 0 : Number(row.tokens);
  };
  return {
    async reserveDailyTokens({ bucket, day, tokens, limit }) {
      const added = await one(reserveDailyTokens, [bucket, day, tokens, limit]);
      if (added !== undefined) return { admitted: true, total: Number(added.tokens) };
      return { admitted: false, total: await readDailyTokens({ bucket, day }) };
    },
    async addDailyTokens({ bucket, day, tokens }) {
      await query(statements.addDailyTokens, [bucket, day, tokens]);
    },
    readDailyTokens,
  };
}
