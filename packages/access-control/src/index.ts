// @quantum-chat/access-control: keys, plans, quotas and rate limits behind the core's
// `AccessControl` seam (decisions §6).

/** The access control to hand `createChatHandler({ accessControl })`. */
export { createAccessControl } from './create-access-control.js';
export type { AccessControlOptions, StoreAccessControl } from './create-access-control.js';

/**
 * The service's store (organisations, keys, the usage ledger, the audit log, daily quotas,
 * changes), one interface per concern composed into `ServiceStore`: memory, SQLite (the
 * embedded default) and PostgreSQL (several hosts).
 */
export type {
  ServiceStore,
  KeyStore,
  StoreLifecycle,
  OrganisationStore,
  ApiKeyStore,
  UsageLedgerStore,
  AuditLogStore,
  DailyQuotaStore,
  ChangeFeed,
  Organisation,
  OrganisationChange,
  ApiKeyRecord,
  NewApiKeyRecord,
  ResolvedApiKey,
  UsageRecord,
  UsageApi,
  UsageSummaryRow,
  DailyUsageRow,
  DailyUsageFilter,
  AuditEntry,
  KeyChange,
  KeyRotation,
  DailyReservation,
  DailyReservationInput,
  StoreChange,
  MigrationResult,
} from './service-store/index.js';
export { createSqliteStore, createSqliteKeyStore } from './sqlite-store/index.js';
export type { SqliteStoreOptions, SqliteKeyStoreOptions } from './sqlite-store/index.js';
export { createPostgresStore, createPostgresKeyStore } from './postgres-store/index.js';
export type { PostgresStoreOptions, PostgresKeyStoreOptions } from './postgres-store/index.js';
export { createMemoryStore, createMemoryKeyStore } from './memory-store/index.js';

/** The Responses API's stored responses (the core's `ResponseStore`) in a SQLite or PostgreSQL store's database. */
export { createSqliteResponseStore } from './sqlite-store/responses.js';
export { createPostgresResponseStore } from './postgres-store/responses.js';
export type { SqlResponseStore, SqlResponseStoreOptions } from './sql-store/sql-response-store.js';
export { issueApiKey, displayKeyRecord } from './issue-api-key.js';
export type { IssueApiKeyInput } from './issue-api-key.js';
export { hashApiKey } from './hash-api-key.js';

/** Plans and limits. */
export { defaultPlanLimits, resolveLimits } from './plan-limits.js';
export type { Limits, LimitOverrides, PlanLimits } from './plan-limits.js';

/** Rate limits and quotas: in memory, or shared through Redis. */
export { createLimiter } from './create-limiter.js';
export type { Limiter, LimiterOptions, LimitDecision } from './create-limiter.js';
export type { LimitDimension, LimitReading, LimitState } from './limit-state.js';
export { maxRedisTimeoutMs } from './create-redis-client.js';
export type { RedisClient } from './redis-client.js';
export { rateLimitHeaders, retryAfterHeaders, formatResetDuration } from './rate-limit-headers.js';
