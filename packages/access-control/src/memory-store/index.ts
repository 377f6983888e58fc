import type { ServiceStore } from '../service-store/index.js';
import { createMemoryAuditLog } from './audit.js';
import { createMemoryChangeFeed } from './changes.js';
import { createMemoryDailyQuota } from './daily-quota.js';
import { createMemoryKeys } from './keys.js';
import { createMemoryOrganisations } from './organisations.js';
import { createMemoryState } from './state.js';
import { createMemoryUsageLedger } from './usage-ledger.js';

/**
 * A store in memory: for tests and for embedders who load keys from elsewhere. Nothing
 * survives a restart, and nothing is shared with another process.
 *
 * @example
 * const store = createMemoryStore();
 */
export function createMemoryStore(options: { now?: () => number } = {}): ServiceStore {
  const state = createMemoryState(options.now ?? Date.now);
  return {
    async migrate() {
      return { from: 0, to: 0 };
    },
    async ping() {},
    async close() {
      state.listeners.clear();
    },
    ...createMemoryOrganisations(state),
    ...createMemoryKeys(state),
    ...createMemoryUsageLedger(state),
    ...createMemoryAuditLog(state),
    ...createMemoryDailyQuota(state),
    ...createMemoryChangeFeed(state),
  };
}

/**
 * @deprecated Renamed `createMemoryStore`.
 * @alias
 */
export const createMemoryKeyStore = createMemoryStore;
