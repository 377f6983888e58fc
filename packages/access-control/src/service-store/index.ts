import type { ApiKeyKind, Plan } from '@quantum-chat/core';
import type { LimitOverrides } from './plan-limits.js';

/** An organisation: the owner of keys, with a plan and optional limit overrides. */
export interface Organisation {
  /** Unique and stable; what the CLI and the limits are keyed by. */
  name: string;
  plan: Plan;
  limits: LimitOverrides;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/**
 * A stored API key. The secret itself is never stored: only its SHA-256 (hex), and the
 * prefix and last 4 characters for display (decisions §6).
 */
export interface ApiKeyRecord {
  /** A public id (`key_…`), used by `keys revoke <id>`. */
  id: string;
  organisation: string;
  kind: ApiKeyKind;
  /** SHA-256 of the whole key, lower-case hex. */
  hash: string;
  /** The key's prefix (`qc_live_`), for display. */
  prefix: string;
  /** The key's last 4 characters, for display. */
  last4: string;
  /** The key is only valid with a good `X-Service-Signature` (decisions §7). */
  requireSignature: boolean;
  revoked: boolean;
  createdAt: number;
  /** When the key stops working (ms since the epoch); `null`: never. */
  expiresAt: number | null;
  /** The models the key may use; `null`: every model its plan allows. */
  allowedModels: string[] | null;
  /** The key's own limits within its organisation's (a missing field: the organisation's). */
  limits: LimitOverrides;
  /**
   * Set once the key was rotated: it works until its overlap ends (`expiresAt`), and that end
   * may come sooner but never later (decisions §9). Absent: never rotated.
   */
  rotation?: KeyRotation;
}

/** When a key was rotated, and the key that replaced it. */
export interface KeyRotation {
  /** ms since the epoch. */
  at: number;
  /** The id of the key the rotation issued. */
  replacedBy: string;
}

/** A key found by its hash, with its organisation. */
export interface ResolvedApiKey {
  key: ApiKeyRecord;
  organisation: Organisation;
}

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

/** A change to a key. A field left out is left alone. */
export interface KeyChange {
  /** When the key stops working (ms since the epoch); `null`: never. */
  expiresAt?: number | null;
  /** The models the key may use; `null`: every model its plan allows. */
  allowedModels?: readonly string[] | null;
  /** The key's own limits to set (merged like an organisation's). */
  limits?: LimitOverrides;
  /** The key's own limits to drop: the organisation's alone apply then. */
  resetLimits?: readonly (keyof LimitOverrides)[];
  /** Records that the key was rotated (the last rotation is kept). */
  rotation?: KeyRotation;
}

/** A change to an organisation. */
export interface OrganisationChange {
  plan?: Plan;
  limits?: LimitOverrides;
  resetLimits?: readonly (keyof LimitOverrides)[];
}

export interface NewApiKeyRecord {
  organisation: string;
  kind: ApiKeyKind;
  hash: string;
  prefix: string;
  last4: string;
  requireSignature?: boolean;
  expiresAt?: number | null;
  allowedModels?: readonly string[] | null;
  limits?: LimitOverrides;
}

/** What a daily reservation found: admitted (and counted), or refused (nothing counted). */
export interface DailyReservation {
  admitted: boolean;
  /** The day's count after the reservation (admitted) or as it stands (refused). */
  total: number;
}

/**
 * A change another instance (or the CLI) made to keys or organisations: cached lookups of it
 * must be dropped. `hash` names one key; `organisation` every key of one organisation.
 */
export type StoreChange = { kind: 'key'; hash: string } | { kind: 'organisation'; name: string } | { kind: 'reset' };

/** The schema versions before and after `migrate()`. */
export interface MigrationResult {
  from: number;
  to: number;
}

/**
 * Where keys, organisations, the usage ledger and the daily quotas live. Every call is
 * asynchronous and none blocks the event loop: the memory store answers at once, SQLite runs
 * in a worker thread, PostgreSQL over the network. `test/key-store-contract.ts` is the
 * behaviour every store shares.
 *
 * @example
 * const store = createSqliteKeyStore('.data/quantum-chat.sqlite');
 * await store.createOrganisation({ name: 'acme', plan: 'free' });
 */
export interface KeyStore {
  /** Creates or upgrades the schema (also done on first use); idempotent, safe to run from several processes at once. */
  migrate(): Promise<MigrationResult>;
  /** Resolves when the store answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;

  /** Creates an organisation; throws if the name is taken. */
  createOrganisation(input: { name: string; plan: Plan; limits?: LimitOverrides }): Promise<Organisation>;
  getOrganisation(name: string): Promise<Organisation | undefined>;
  listOrganisations(): Promise<Organisation[]>;
  /**
   * Changes the plan and merges limit overrides (a field set to `undefined` is left alone);
   * `resetLimits` drops overrides, so that those limits follow the plan again.
   */
  updateOrganisation(name: string, change: OrganisationChange): Promise<Organisation>;

  /** Stores a key's hash; the organisation must exist. */
  createKey(input: NewApiKeyRecord): Promise<ApiKeyRecord>;
  getKey(id: string): Promise<ApiKeyRecord | undefined>;
  /** The key with this SHA-256 hex and its organisation, revoked or not. */
  findKeyByHash(hash: string): Promise<ResolvedApiKey | undefined>;
  listKeys(filter?: { organisation?: string }): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked (and tells every subscriber); false when there is no such key. */
  revokeKey(id: string): Promise<boolean>;
  /**
   * Changes a key's expiry, allowed models or own limits (and tells every subscriber, so
   * caches drop it); `undefined` when there is no such key.
   */
  updateKey(id: string, change: KeyChange): Promise<ApiKeyRecord | undefined>;

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

  /** Appends an entry to the audit log; entries are never changed. */
  writeAudit(entry: Omit<AuditEntry, 'id'>): Promise<void>;
  /** Audit entries, newest first: those at or after `since` (ms), at most `limit` (100 by default). */
  listAudit(filter?: { since?: number; limit?: number }): Promise<AuditEntry[]>;

  /**
   * Adds `tokens` to the day's count of `bucket` if it stays within `limit`, atomically
   * across every process sharing the store; counts nothing otherwise.
   */
  reserveDailyTokens(input: { bucket: string; day: string; tokens: number; limit: number }): Promise<DailyReservation>;
  /** Adds (or, negative, takes back) tokens to a day's count unconditionally. */
  addDailyTokens(input: { bucket: string; day: string; tokens: number }): Promise<void>;
  /** The day's count of `bucket` (0 when nothing was counted). */
  readDailyTokens(input: { bucket: string; day: string }): Promise<number>;

  /**
   * Calls `listener` when keys or organisations change, in this process or another one
   * (PostgreSQL: LISTEN/NOTIFY; SQLite: a change log polled every 100 ms). Returns the
   * unsubscribe function.
   */
  subscribe(listener: (change: StoreChange) => void): () => void;
  close(): Promise<void>;
}
