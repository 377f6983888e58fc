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
}

/** A key found by its hash, with its organisation. */
export interface ResolvedApiKey {
  key: ApiKeyRecord;
  organisation: Organisation;
}

/** One request, as recorded when it settles. */
export interface UsageRecord {
  requestId: string;
  keyId: string;
  organisation: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** The HTTP status answered (200 also for a stream that failed mid-way). */
  status: number;
  /** The request ended by a client disconnect or an error. */
  interrupted: boolean;
  /** Milliseconds since the epoch. */
  timestamp: number;
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
  completionTokens: number;
  /** Requests answered with a status of 400 or more. */
  errors: number;
  /** Requests that ended early: a disconnect or a failure mid-stream. */
  interrupted: number;
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
}

/**
 * Where keys, organisations and usage live. Asynchronous, so that an embedder can plug in a
 * networked database; the built-in SQLite and memory stores answer at once.
 *
 * @example
 * const store = createSqliteKeyStore('.data/quantum-chat.sqlite');
 * await store.createOrganisation({ name: 'acme', plan: 'free' });
 */
export interface KeyStore {
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
  /** The key with this SHA-256 hex and its organisation, revoked or not. */
  findKeyByHash(hash: string): Promise<ResolvedApiKey | undefined>;
  listKeys(filter?: { organisation?: string }): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; false when there is no such key. */
  revokeKey(id: string): Promise<boolean>;
  recordUsage(record: UsageRecord): Promise<void>;
  /** Totals per key and model, optionally since a time (ms since the epoch). */
  summariseUsage(filter: { organisation: string; since?: number }): Promise<UsageSummaryRow[]>;
  /** The raw records of an organisation, oldest first (for audits and tests). */
  listUsage(filter: { organisation: string; since?: number }): Promise<UsageRecord[]>;
  close(): Promise<void>;
}
