import { maxAuditEntries, type AuditLogStore } from '../service-store/index.js';
import { auditFromRow } from '../sql-store/rows.js';
import type { PostgresContext } from './context.js';

/** @internal */
export function createPostgresAuditLog(context: PostgresContext): AuditLogStore {
  const { statements, query } = context;
  return {
    async writeAudit(entry) {
      await query(statements.insertAudit, [
        entry.at, entry.actor, entry.action, entry.subject, JSON.stringify(entry.details), entry.requestId, entry.clientRequestId ?? null,
      ]);
    },
    async listAudit({ since, limit } = {}) {
      const rows = await query(statements.listAudit, [since ?? 0, Math.min(limit ?? 100, maxAuditEntries)]);
      return rows.map(auditFromRow);
    },
  };
}
