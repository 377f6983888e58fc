// The service's store: one interface per concern, composed into the one a server needs.
import type { AuditLogStore } from './audit.js';
import type { ChangeFeed } from './changes.js';
import type { DailyQuotaStore } from './daily-quota.js';
import type { ApiKeyStore } from './keys.js';
import type { OrganisationStore } from './organisations.js';
import type { UsageLedgerStore } from './usage-ledger.js';

export type { Organisation, OrganisationChange, OrganisationStore } from './organisations.js';
export type { ApiKeyRecord, ApiKeyStore, KeyChange, KeyRotation, NewApiKeyRecord, ResolvedApiKey } from './keys.js';
export type { DailyUsageFilter, DailyUsageRow, UsageApi, UsageLedgerStore, UsageRecord, UsageSummaryRow } from './usage-ledger.js';
export type { AuditEntry, AuditLogStore } from './audit.js';
export { maxAuditEntries } from './audit.js';
export type { DailyQuotaStore, DailyReservation, DailyReservationInput } from './daily-quota.js';
export type { ChangeFeed, StoreChange } from './changes.js';

/** The schema versions before and after `migrate()`. */
export interface MigrationResult {
  from: number;
  to: number;
}

/** The store's own life: its schema, whether it answers, and its end. */
export interface StoreLifecycle {
  /** Creates or upgrades the schema (also done on first use); idempotent, safe to run from several processes at once. */
  migrate(): Promise<MigrationResult>;
  /** Resolves when the store answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where keys, organisations, the usage ledger and the daily quotas live. Every call is
 * asynchronous and none blocks the event loop: the memory store answers at once, SQLite runs
 * in a worker thread, PostgreSQL over the network. `test/service-store-contract.ts` is the
 * behaviour every store shares.
 *
 * @example
 * const store = createSqliteStore('.data/quantum-chat.sqlite');
 * await store.createOrganisation({ name: 'acme', plan: 'free' });
 */
export interface ServiceStore extends StoreLifecycle, OrganisationStore, ApiKeyStore, UsageLedgerStore, AuditLogStore, DailyQuotaStore, ChangeFeed {}

/** @deprecated Renamed `ServiceStore`: it holds far more than keys. */
export type KeyStore = ServiceStore;
