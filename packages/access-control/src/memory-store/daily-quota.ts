import type { DailyQuotaStore } from '../service-store/index.js';
import { addDaily, dayKey, type MemoryState } from './state.js';

/** Daily token counts in a map; one process, so every reservation is atomic. @internal */
export function createMemoryDailyQuota(state: MemoryState): DailyQuotaStore {
  const { daily } = state;
  return {
    async reserveDailyTokens({ bucket, day, tokens, limit }) {
      const total = daily.get(dayKey(bucket, day)) ?? 0;
      if (total + tokens > limit) return { admitted: false, total };
      daily.set(dayKey(bucket, day), total + tokens);
      return { admitted: true, total: total + tokens };
    },
    async addDailyTokens({ bucket, day, tokens }) {
      addDaily(state, bucket, day, tokens);
    },
    async readDailyTokens({ bucket, day }) {
      return daily.get(dayKey(bucket, day)) ?? 0;
    },
  };
}
