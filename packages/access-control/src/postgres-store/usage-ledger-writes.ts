import type { UsageLedgerStore, UsageRecord } from '../service-store/index.js';
import { usageColumns, usageToValues, usageUpdatedColumns } from '../sql-store/rows.js';
import type { PostgresContext } from './context.js';

/**
 * The usage upsert: the rows come as one JSON array, in lock order (a function scan keeps it).
 * Why one JSON parameter: a `VALUES` list of n rows was a new statement for every group size,
 * parsed, described (a second round trip) and planned on each write; this one text is
 * prepared once per connection. The parameter is text (then cast): a `json` one the driver
 * would encode a second time.
 */
const upsertUsageRows = `INSERT INTO usage (${usageColumns.join(', ')})
  SELECT ${usageColumns.join(', ')} FROM json_populate_recordset(NULL::usage, $1::text::json)
  ON CONFLICT (usage_id) DO UPDATE SET ${usageUpdatedColumns.map((column) => `${column} = EXCLUDED.${column}`).join(', ')}
  WHERE NOT usage.settled OR (usage.abandoned AND NOT EXCLUDED.abandoned AND EXCLUDED.settled)`;

/** The rows as the JSON array `upsertUsageRows` reads: objects keyed by column name. */
function usageRowsAsJson(records: readonly UsageRecord[], updatedAt: number): string {
  return JSON.stringify(records.map((record) => {
    const values = usageToValues(record, updatedAt, (value) => value);
    return Object.fromEntries(usageColumns.map((column, index) => [column, values[index]]));
  }));
}

/** @internal */
export function createPostgresUsageLedgerWrites(context: PostgresContext): Pick<UsageLedgerStore, 'writeUsage' | 'settleAbandonedUsage'> {
  const { sql, migrate, now, statements, query } = context;
  return {
    async writeUsage(records: readonly UsageRecord[]) {
      if (records.length === 0) return;
      await migrate();
      // One row per usage id (the last write wins): ON CONFLICT cannot touch a row twice.
      const latest = [...new Map(records.map((record) => [record.usageId, record])).values()];
      const updatedAt = now();
      await sql.unsafe(upsertUsageRows, [usageRowsAsJson(latest, updatedAt)], { prepare: true });
    },
    async settleAbandonedUsage(before) {
      const rows = await query(`${statements.settleAbandonedUsage} RETURNING id`, [now(), before]);
      return rows.length;
    },
  };
}
