// Rows of the SQL stores (SQLite and PostgreSQL share column names) to records and back.
import type { Plan } from '@quantum-chat/core';
import { utcDay } from '../utc-day.js';
import type { ApiKeyRecord, AuditEntry, DailyUsageRow, Organisation, UsageRecord, UsageSummaryRow } from '../service-store/index.js';
import type { LimitOverrides } from '../plan-limits.js';

/** @internal */
export type Row = Record<string, unknown>;

/** @internal */
export const limitColumns = { requestsPerMinute: 'requests_per_minute', tokensPerMinute: 'tokens_per_minute', tokensPerDay: 'tokens_per_day' } as const;

/** -1 in a column means "no limit" (`null`); NULL means "the default" (absent). @internal */
function limitsFromRow(row: Row, prefix = ''): LimitOverrides {
  const limits: LimitOverrides = {};
  for (const [field, column] of Object.entries(limitColumns) as [keyof LimitOverrides, string][]) {
    const value = row[prefix + column];
    if (value !== null && value !== undefined) {
      const number = Number(value);
      limits[field] = number < 0 ? null : number;
    }
  }
  return limits;
}

/** A limit override as a column value. @internal */
export const limitToColumn = (value: number | null | undefined): number | null => (value === undefined ? null : value === null ? -1 : value);

const flag = (value: unknown) => value === 1 || value === true || value === 1n;

/** @internal */
export function organisationFromRow(row: Row, prefix = ''): Organisation {
  return {
    name: String(row[`${prefix}name`]),
    plan: row[`${prefix}plan`] as Plan,
    limits: limitsFromRow(row, prefix),
    createdAt: Number(row[`${prefix}created_at`]),
  };
}

/** @internal */
export function keyFromRow(row: Row): ApiKeyRecord {
  const allowed = row.allowed_models;
  return {
    id: String(row.id),
    organisation: String(row.organisation),
    kind: row.kind === 'test' ? 'test' : 'live',
    hash: String(row.hash),
    prefix: String(row.prefix),
    last4: String(row.last4),
    requireSignature: flag(row.require_signature),
    revoked: row.revoked_at !== null && row.revoked_at !== undefined,
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null || row.expires_at === undefined ? null : Number(row.expires_at),
    allowedModels: allowed === null || allowed === undefined ? null : (JSON.parse(String(allowed)) as string[]),
    limits: limitsFromRow(row),
    ...(row.rotated_at === null || row.rotated_at === undefined ? {} : { rotation: { at: Number(row.rotated_at), replacedBy: String(row.replaced_by) } }),
  };
}

/** @internal */
export function usageFromRow(row: Row): UsageRecord {
  const record: UsageRecord = {
    usageId: String(row.usage_id),
    requestId: String(row.request_id),
    keyId: String(row.key_id),
    organisation: String(row.organisation),
    model: String(row.model),
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    status: Number(row.status),
    api: row.api === 'responses' ? 'responses' : 'chat.completions',
    interrupted: flag(row.interrupted),
    settled: flag(row.settled),
    timestamp: Number(row.created_at),
  };
  if (row.cached_prompt_tokens !== null && row.cached_prompt_tokens !== undefined) record.cachedPromptTokens = Number(row.cached_prompt_tokens);
  if (flag(row.abandoned)) record.abandoned = true;
  if (row.daily_bucket !== null && row.daily_bucket !== undefined) {
    record.daily = { bucket: String(row.daily_bucket), day: String(row.daily_day), charged: Number(row.daily_charged) };
  }
  return record;
}

/** The values of a usage row, in the column order of `usageColumns`. @internal */
export function usageToValues(record: UsageRecord, updatedAt: number, toFlag: (value: boolean) => unknown): unknown[] {
  return [
    record.usageId, record.requestId, record.keyId, record.organisation, record.model, record.promptTokens, record.completionTokens,
    record.status, toFlag(record.interrupted), toFlag(record.settled), toFlag(record.abandoned ?? false),
    record.daily?.bucket ?? null, record.daily?.day ?? null, record.daily?.charged ?? 0, record.timestamp, updatedAt,
    record.cachedPromptTokens ?? null, record.api ?? 'chat.completions',
  ];
}

/** @internal */
export const usageColumns = [
  'usage_id', 'request_id', 'key_id', 'organisation', 'model', 'prompt_tokens', 'completion_tokens', 'status', 'interrupted',
  'settled', 'abandoned', 'daily_bucket', 'daily_day', 'daily_charged', 'created_at', 'updated_at', 'cached_prompt_tokens', 'api',
] as const;

/** The columns an upsert of a usage row may change. @internal */
export const usageUpdatedColumns = ['prompt_tokens', 'completion_tokens', 'status', 'interrupted', 'settled', 'abandoned', 'updated_at', 'cached_prompt_tokens', 'api'] as const;

/** @internal */
export function summaryFromRow(row: Row): UsageSummaryRow {
  return {
    keyId: String(row.key_id),
    keyDisplay: String(row.key_display),
    kind: row.kind === 'test' ? 'test' : 'live',
    model: String(row.model),
    requests: Number(row.requests),
    promptTokens: Number(row.prompt_tokens),
    cachedPromptTokens: Number(row.cached_prompt_tokens ?? 0),
    completionTokens: Number(row.completion_tokens),
    errors: Number(row.errors),
    interrupted: Number(row.interrupted),
  };
}

/** A duplicate name or hash, in either database's words. @internal */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || (typeof code === 'string' && (code.startsWith('SQLITE_CONSTRAINT_UNIQUE') || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'));
}

const dayMs = 86_400_000;

/** @internal */
export function dailyUsageFromRow(row: Row): DailyUsageRow {
  return { day: utcDay(Number(row.day_number) * dayMs), organisation: String(row.organisation), ...summaryFromRow(row) };
}

/** @internal */
export function auditFromRow(row: Row): AuditEntry {
  return {
    id: Number(row.id),
    at: Number(row.at),
    actor: String(row.actor),
    action: String(row.action),
    subject: row.subject === null || row.subject === undefined ? null : String(row.subject),
    details: JSON.parse(String(row.details)) as Record<string, unknown>,
    requestId: row.request_id === null || row.request_id === undefined ? null : String(row.request_id),
    clientRequestId: row.client_request_id === null || row.client_request_id === undefined ? null : String(row.client_request_id),
  };
}
