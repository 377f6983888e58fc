import type { UsageLedgerStore, UsageRecord } from '../service-store/index.js';
import { usageColumns, usageUpdatedColumns } from '../sql-store/rows.js';
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

/**
 * A usage row as `json_populate_recordset` reads it: an object keyed by column name, written as
 * one literal (a test holds it to `usageColumns` and `usageToValues`). Why not built from those
 * two with `Object.fromEntries`: that took 2.2 µs a row on the server, this 0.8.
 * @internal
 */
export function usageToJsonRow(record: UsageRecord, updatedAt: number) {
  return {
    usage_id: record.usageId,
    request_id: record.requestId,
    key_id: record.keyId,
    organisation: record.organisation,
    model: record.model,
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    status: record.status,
    interrupted: record.interrupted,
    settled: record.settled,
    abandoned: record.abandoned ?? false,
    daily_bucket: record.daily?.bucket ?? null,
    daily_day: record.daily?.day ?? null,
    daily_charged: record.daily?.charged ?? 0,
    created_at: record.timestamp,
    updated_at: updatedAt,
    cached_prompt_tokens: record.cachedPromptTokens ?? null,
    api: record.api ?? 'chat.completions',
  };
}

/** The rows as the JSON array `upsertUsageRows` reads. */
const usageRowsAsJson = (records: readonly UsageRecord[], updatedAt: number): string => JSON.stringify(records.map((record) => usageToJsonRow(record, updatedAt)));

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
