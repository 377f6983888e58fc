import type { UsageLedgerStore } from '../service-store/index.js';
import { dailyUsageFromRow, summaryFromRow, usageFromRow } from '../sql-store/rows.js';
import { dailyUsageQuery, sqliteDialect } from '../sql-store/statements.js';
import { sortDailyRows } from '../summarise-usage.js';
import type { SqliteContext } from './context.js';

/** @internal */
export function createSqliteUsageLedgerReads(context: SqliteContext): Pick<UsageLedgerStore, 'summariseUsage' | 'listUsage' | 'summariseUsageByDay'> {
  const { statements, all } = context;
  return {
    async summariseUsage({ organisation, since }) {
      return (await all(statements.summariseUsage, [organisation, since ?? 0])).map(summaryFromRow);
    },
    async listUsage({ organisation, since }) {
      return (await all(statements.listUsage, [organisation, since ?? 0])).map(usageFromRow);
    },
    async summariseUsageByDay(filter) {
      const { text, params } = dailyUsageQuery(sqliteDialect, filter);
      return sortDailyRows((await all(text, params)).map(dailyUsageFromRow));
    },
  };
}
