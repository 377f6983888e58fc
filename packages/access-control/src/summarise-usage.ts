import { utcDay } from './utc-day.js';
import { displayKeyRecord } from './issue-api-key.js';
import type { ApiKeyRecord, DailyUsageFilter, DailyUsageRow, UsageRecord, UsageSummaryRow } from './service-store/index.js';

type Counts = Pick<UsageSummaryRow, 'requests' | 'promptTokens' | 'cachedPromptTokens' | 'completionTokens' | 'errors' | 'interrupted'>;

function addRecord(row: Counts, record: UsageRecord): void {
  row.requests += 1;
  row.promptTokens += record.promptTokens;
  row.cachedPromptTokens += record.cachedPromptTokens ?? 0;
  row.completionTokens += record.completionTokens;
  if (record.status >= 400) row.errors += 1;
  if (record.interrupted) row.interrupted += 1;
}

function emptyRow(record: UsageRecord, keys: ReadonlyMap<string, ApiKeyRecord>): UsageSummaryRow {
  const key = keys.get(record.keyId);
  return {
    keyId: record.keyId,
    keyDisplay: key ? displayKeyRecord(key) : '',
    kind: key?.kind ?? 'live',
    model: record.model,
    requests: 0,
    promptTokens: 0,
    cachedPromptTokens: 0,
    completionTokens: 0,
    errors: 0,
    interrupted: 0,
  };
}

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
      row = emptyRow(record, keys);
      rows.set(id, row);
    }
    addRecord(row, record);
  }
  return [...rows.values()].sort((a, b) => a.keyId.localeCompare(b.keyId) || a.model.localeCompare(b.model));
}

/** Does a usage record fall under a daily usage filter? @internal */
function matchesDailyFilter(record: UsageRecord, filter: DailyUsageFilter): boolean {
  return (
    (filter.organisation === undefined || record.organisation === filter.organisation) &&
    (filter.keyId === undefined || record.keyId === filter.keyId) &&
    (filter.model === undefined || record.model === filter.model) &&
    record.timestamp >= (filter.since ?? 0) &&
    (filter.until === undefined || record.timestamp < filter.until)
  );
}

/** Code-unit order, the same in every store whatever the database's collation. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Daily rows in the order every store returns them: day, organisation, key, model.
 *
 * @internal
 */
export function sortDailyRows(rows: DailyUsageRow[]): DailyUsageRow[] {
  return rows.sort((a, b) => compare(a.day, b.day) || compare(a.organisation, b.organisation) || compare(a.keyId, b.keyId) || compare(a.model, b.model));
}

/**
 * Totals per UTC day, organisation, key and model from raw usage records (the memory store's
 * version of the SQL stores' query).
 *
 * @internal
 */
export function summariseUsageByDay(records: Iterable<UsageRecord>, keys: ReadonlyMap<string, ApiKeyRecord>, filter: DailyUsageFilter): DailyUsageRow[] {
  const rows = new Map<string, DailyUsageRow>();
  for (const record of records) {
    if (!matchesDailyFilter(record, filter)) continue;
    const day = utcDay(record.timestamp);
    const id = `${day}\u0000${record.organisation}\u0000${record.keyId}\u0000${record.model}`;
    let row = rows.get(id);
    if (row === undefined) {
      row = { day, organisation: record.organisation, ...emptyRow(record, keys) };
      rows.set(id, row);
    }
    addRecord(row, record);
  }
  return sortDailyRows([...rows.values()]);
}
