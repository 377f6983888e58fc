import { displayKeyRecord } from './issue-api-key.js';
import type { ApiKeyRecord, UsageRecord, UsageSummaryRow } from './key-store.js';

/**
 * Totals per key and model from raw usage records, sorted by key then model. The SQLite store
 * does the same in SQL; this is the memory store's version.
 *
 * @internal
 */
export function summariseUsageRecords(records: readonly UsageRecord[], keys: ReadonlyMap<string, ApiKeyRecord>): UsageSummaryRow[] {
  const rows = new Map<string, UsageSummaryRow>();
  for (const record of records) {
    const id = `${record.keyId}\u0000${record.model}`;
    let row = rows.get(id);
    if (row === undefined) {
      const key = keys.get(record.keyId);
      row = {
        keyId: record.keyId,
        keyDisplay: key ? displayKeyRecord(key) : '',
        kind: key?.kind ?? 'live',
        model: record.model,
        requests: 0,
        promptTokens: 0,
        completionTokens: 0,
        errors: 0,
        interrupted: 0,
      };
      rows.set(id, row);
    }
    row.requests += 1;
    row.promptTokens += record.promptTokens;
    row.completionTokens += record.completionTokens;
    if (record.status >= 400) row.errors += 1;
    if (record.interrupted) row.interrupted += 1;
  }
  return [...rows.values()].sort((a, b) => a.keyId.localeCompare(b.keyId) || a.model.localeCompare(b.model));
}
