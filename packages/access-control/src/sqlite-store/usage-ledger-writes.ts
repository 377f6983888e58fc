import type { UsageLedgerStore, UsageRecord } from '../service-store/index.js';
import { usageColumns, usageToValues, usageUpdatedColumns } from '../sql-store/rows.js';
import type { SqliteContext } from './context.js';

const upsertUsage = `INSERT INTO usage (${usageColumns.join(', ')}) VALUES (${usageColumns.map(() => '?').join(', ')})
  ON CONFLICT (usage_id) DO UPDATE SET ${usageUpdatedColumns.map((column) => `${column} = excluded.${column}`).join(', ')}
  WHERE usage.settled = 0 OR (usage.abandoned = 1 AND excluded.abandoned = 0 AND excluded.settled = 1)`;

/** Usage rows are written with a short wait on another process's lock: the recorder retries them later. */
const usageLockWaitMs = 250;

/** @internal */
export function createSqliteUsageLedgerWrites(context: SqliteContext): Pick<UsageLedgerStore, 'writeUsage' | 'settleAbandonedUsage'> {
  const { executor, statements } = context;
  return {
    async writeUsage(records: readonly UsageRecord[]) {
      if (records.length === 0) return;
      const updatedAt = context.now();
      const rows = records.map((record) => usageToValues(record, updatedAt, (value) => (value ? 1 : 0)));
      await executor.execute([{ sql: upsertUsage, rows, mode: 'runEach' }], { transaction: true, lockWaitMs: usageLockWaitMs });
    },
    async settleAbandonedUsage(before) {
      const [result] = await executor.execute([{ sql: statements.settleAbandonedUsage, params: [context.now(), before], mode: 'run' }], { lockWaitMs: usageLockWaitMs });
      return (result as { changes: number }).changes;
    },
  };
}
