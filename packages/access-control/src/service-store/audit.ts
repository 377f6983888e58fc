// The audit log of administrative actions: append-only.

/**
 * One administrative action: who did what to what, and when. Never a secret: a key appears
 * by its id and display form only.
 */
export interface AuditEntry {
  /** Increasing in the order entries were written. */
  id: number;
  /** ms since the epoch. */
  at: number;
  /** Who acted: an admin token's id (`admin:ops`), or the CLI and the system user (`cli:alice`). */
  actor: string;
  /** What was done, `<object>.<verb>`: `organisation.create`, `key.rotate`, ... */
  action: string;
  /** What it was done to: an organisation's name or a key's id. */
  subject: string | null;
  /** The change, as given (never a secret). */
  details: Record<string, unknown>;
  /** Our `x-request-id` of the admin API request (the one its response carried), if it came through the API. */
  requestId: string | null;
  /**
   * The `x-request-id` the client sent, as it came (at most 128 characters), kept apart from
   * ours: a client chooses it, so it proves nothing. Absent or null: none was sent.
   */
  clientRequestId?: string | null;
}

/** The most audit entries one read returns. */
export const maxAuditEntries = 1000;

/** Where the audit log lives. */
export interface AuditLogStore {
  /** Appends an entry to the audit log; entries are never changed. */
  writeAudit(entry: Omit<AuditEntry, 'id'>): Promise<void>;
  /** Audit entries, newest first: those at or after `since` (ms), at most `limit` (100 by default). */
  listAudit(filter?: { since?: number; limit?: number }): Promise<AuditEntry[]>;
}
