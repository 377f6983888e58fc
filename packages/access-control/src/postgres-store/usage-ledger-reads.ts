import type { UsageLedgerStore } from '../service-store/index.js';
import { dailyUsageFromRow, summaryFromRow, usageFromRow } from '../sql-store/rows.js';
import { dailyUsageQuery, postgresDialect } from '../sql-store/statements.js';
import { sortDailyRows } from '../summarise-usage.js';
import type { PostgresContext } from './context.js';

/** @internal */
export function createPostgresUsageLedgerReads(context: PostgresContext): Pick<UsageLedgerStore, 'summariseUsage' | 'listUsage' | 'summariseUsageByDay'> {
  const { statements, query } = context;
  return {
    async summariseUsage({ organisation, since }) {
      return (await query(statements.summariseUsage, [organisation, since ?? 0])).map(summaryFromRow);
    },
    async listUsage({ organisation, since }) {
      return (await query(statements.listUsage, [organisation, since ?? 0])).map(usageFromRow);
    },
    async summariseUsageByDay(filter) {
      const { text, params } = dailyUsageQuery(postgresDialect, filter);
      return sortDailyRows((await query(text, params)).map(dailyUsageFromRow));
    },
  };
}
