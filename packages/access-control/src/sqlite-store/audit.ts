import { maxAuditEntries, type AuditLogStore } from '../service-store/index.js';
import { auditFromRow } from '../sql-store/rows.js';
import type { SqliteContext } from './context.js';

/** @internal */
export function createSqliteAuditLog(context: SqliteContext): AuditLogStore {
  const { executor, statements, all } = context;
  return {
    async writeAudit(entry) {
      await executor.execute([
        {
          sql: statements.insertAudit,
          params: [entry.at, entry.actor, entry.action, entry.subject, JSON.stringify(entry.details), entry.requestId, entry.clientRequestId ?? null],
          mode: 'run',
        },
      ]);
    },
    async listAudit({ since, limit } = {}) {
      const rows = await all(statements.listAudit, [since ?? 0, Math.min(limit ?? 100, maxAuditEntries)]);
      return rows.map(auditFromRow);
    },
  };
}
