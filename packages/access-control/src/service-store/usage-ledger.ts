// The usage ledger: one row per admitted request, written while it runs and when it ends.
import type { ApiKeyKind } from '@quantum-chat/core';

/** The API a usage row came through: chat completions or the Responses API. */
export type UsageApi = 'chat.completions' | 'responses';

/**
 * One admitted request in the usage ledger. Written while it runs (a progress count,
 * `settled: false`) and once more when it ends (`settled: true`); every write is an upsert
 * keyed by `usageId`, so a retried write never counts twice, and a settled row never changes.
 */
export interface UsageRecord {
  /** Unique per admitted request: the ledger's idempotency key. */
  usageId: string;
  /** The request's `x-request-id` (a client may reuse one; `usageId` never repeats). */
  requestId: string;
  keyId: string;
  organisation: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /**
   * Of `promptTokens`, those the model read from its prompt cache, as it reported them
   * (OpenAI's `prompt_tokens_details.cached_tokens`; operators bill them differently). Absent
   * when the model reported none.
   */
  cachedPromptTokens?: number;
  /** The HTTP status answered (200 also for a stream that failed mid-way). */
  status: number;
  /** The API it came through; `chat.completions` when absent (and for rows older than the column). Stores always read it back. */
  api?: UsageApi;
  /** The request ended by a client disconnect, an error or a crash of its instance. */
  interrupted: boolean;
  /** False while the request runs: the counts are what it had produced at the last write. */
  settled: boolean;
  /**
   * Settled by the store from the last count its instance wrote, because that instance
   * stopped writing (it crashed). An instance's own settled write still replaces it.
   */
  abandoned?: boolean;
  /** When the request was admitted, ms since the epoch. */
  timestamp: number;
  /**
   * The daily quota this request counts against, and the tokens already added to it when it
   * was admitted (its reservation; 0 if the store could not be reached then). Once the row is
   * settled, the day's count is corrected to the tokens really used.
   */
  daily?: { bucket: string; day: string; charged: number };
}

/** Usage totals of one key and model. */
export interface UsageSummaryRow {
  keyId: string;
  /** Prefix and last 4 of the key. */
  keyDisplay: string;
  kind: ApiKeyKind;
  model: string;
  requests: number;
  promptTokens: number;
  /** Of `promptTokens`, those the models read from their prompt caches (as they reported). */
  cachedPromptTokens: number;
  completionTokens: number;
  /** Requests answered with a status of 400 or more. */
  errors: number;
  /** Requests that ended early: a disconnect, a failure mid-stream or a crash. */
  interrupted: number;
}

/** Usage totals of one organisation, key and model on one UTC day. */
export interface DailyUsageRow extends UsageSummaryRow {
  /** The UTC day the requests were admitted, `YYYY-MM-DD`. */
  day: string;
  organisation: string;
}

/** Which usage rows to total by day; `since` and `until` are ms since the epoch (`until` excluded). */
export interface DailyUsageFilter {
  organisation?: string;
  keyId?: string;
  model?: string;
  since?: number;
  until?: number;
}

/** Where the usage ledger lives. */
export interface UsageLedgerStore {
  /**
   * Writes usage rows in one transaction: each an upsert by `usageId`. A settled row is never
   * changed again, except that an abandoned one takes its instance's settled write. Settling
   * a row with a `daily` part corrects the day's count by `tokens used - charged`.
   */
  writeUsage(records: readonly UsageRecord[]): Promise<void>;
  /**
   * Settles rows still unsettled and not written since `before` (ms since the epoch): their
   * instance died. They keep the last count written, marked interrupted and abandoned.
   * Returns how many were settled.
   */
  settleAbandonedUsage(before: number): Promise<number>;
  /** Totals per key and model, optionally since a time (ms since the epoch). */
  summariseUsage(filter: { organisation: string; since?: number }): Promise<UsageSummaryRow[]>;
  /** The raw records of an organisation, oldest first (for audits and tests). */
  listUsage(filter: { organisation: string; since?: number }): Promise<UsageRecord[]>;
  /**
   * Totals per UTC day, organisation, key and model (sorted in that order), for the rows the
   * filter names.
   */
  summariseUsageByDay(filter: DailyUsageFilter): Promise<DailyUsageRow[]>;
}
