import { maxAuditEntries, type AuditLogStore } from '../service-store/index.js';
import type { MemoryState } from './state.js';

/** The audit log in an array, append-only. @internal */
export function createMemoryAuditLog(state: MemoryState): AuditLogStore {
  const { audit } = state;
  return {
    async writeAudit(entry) {
      audit.push({ ...entry, id: audit.length + 1, details: structuredClone(entry.details), clientRequestId: entry.clientRequestId ?? null });
    },
    async listAudit({ since, limit } = {}) {
      const entries = audit.filter((entry) => entry.at >= (since ?? 0)).reverse();
      return entries.slice(0, Math.min(limit ?? 100, maxAuditEntries)).map((entry) => ({ ...entry, details: structuredClone(entry.details) }));
    },
  };
}
