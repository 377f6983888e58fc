import type { UsageLedgerStore, UsageRecord } from '../service-store/index.js';
import { summariseUsageByDay, summariseUsageRecords } from '../summarise-usage.js';
import { addDaily, type MemoryState } from './state.js';

/** What a usage row adds to its day's count: its reservation while it runs, its tokens once settled. */
const dailyShare = (record: UsageRecord) => (record.settled ? record.promptTokens + record.completionTokens : record.daily!.charged);

const copyUsage = (record: UsageRecord): UsageRecord => ({ ...record, api: record.api ?? 'chat.completions', ...(record.daily ? { daily: { ...record.daily } } : {}) });

/** The usage ledger in a map by usage id; settling a row corrects its day's count. @internal */
export function createMemoryUsageLedger(state: MemoryState): UsageLedgerStore {
  const { usage, keys } = state;

  function writeOne(record: UsageRecord, updatedAt: number): void {
    const existing = usage.get(record.usageId)?.record;
    if (existing !== undefined && existing.settled && !(existing.abandoned && !record.abandoned && record.settled)) return;
    usage.set(record.usageId, { record: copyUsage(record), updatedAt });
    if (record.daily !== undefined) {
      const before = existing === undefined ? record.daily.charged : dailyShare(existing);
      addDaily(state, record.daily.bucket, record.daily.day, dailyShare(record) - before);
    }
  }

  return {
    async writeUsage(records) {
      const updatedAt = state.now();
      for (const record of records) writeOne(record, updatedAt);
    },
    async settleAbandonedUsage(before) {
      let settled = 0;
      for (const { record, updatedAt } of [...usage.values()]) {
        if (record.settled || updatedAt >= before) continue;
        writeOne({ ...record, settled: true, abandoned: true, interrupted: true }, state.now());
        settled++;
      }
      return settled;
    },
    async summariseUsage({ organisation, since }) {
      const records = [...usage.values()].map((entry) => entry.record);
      return summariseUsageRecords(records.filter((record) => record.organisation === organisation && record.timestamp >= (since ?? 0)), keys);
    },
    async listUsage({ organisation, since }) {
      return [...usage.values()]
        .map((entry) => entry.record)
        .filter((record) => record.organisation === organisation && record.timestamp >= (since ?? 0))
        .map(copyUsage);
    },
    async summariseUsageByDay(filter) {
      return summariseUsageByDay(
        [...usage.values()].map((entry) => entry.record),
        keys,
        filter,
      );
    },
  };
}
