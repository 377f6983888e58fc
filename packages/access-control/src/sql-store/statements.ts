// The SQL text SQLite and PostgreSQL share: the same statements, written once, with each
// dialect's placeholders (`?` or `$n`) and its way of counting rows that match.
import type { DailyUsageFilter, KeyChange, OrganisationChange } from '../service-store/index.js';
import type { LimitOverrides } from '../plan-limits.js';
import { limitColumns, limitToColumn } from './rows.js';

/** What differs between the two dialects in the statements they share. @internal */
export interface SqlDialect {
  /** The placeholder of the `index`-th parameter (from 1). */
  placeholder(index: number): string;
  /** An aggregate counting the rows where `condition` (a boolean or 0/1 column) holds. */
  countWhere(condition: string): string;
  /** The strings of a JSON array parameter as rows of one column, `value`: one statement text whatever the array's length. */
  jsonTextElements(parameter: string): string;
}

/** @internal */
export const sqliteDialect: SqlDialect = {
  placeholder: () => '?',
  countWhere: (condition) => `sum(${condition})`,
  jsonTextElements: (parameter) => `SELECT value FROM json_each(${parameter})`,
};

/** @internal */
export const postgresDialect: SqlDialect = {
  placeholder: (index) => `$${index}`,
  countWhere: (condition) => `count(*) FILTER (WHERE ${condition})`,
  jsonTextElements: (parameter) => `SELECT json_array_elements_text(${parameter}::text::json) AS value`,
};

const placeholders = (dialect: SqlDialect, count: number, from = 1) => Array.from({ length: count }, (_, index) => dialect.placeholder(from + index)).join(', ');

/** A key's columns with its organisation's, prefixed `o_`: what `findKeyByHash` reads. */
const keyWithOrganisationColumns =
  'k.*, o.name AS o_name, o.plan AS o_plan, o.requests_per_minute AS o_requests_per_minute, o.tokens_per_minute AS o_tokens_per_minute, o.tokens_per_day AS o_tokens_per_day, o.created_at AS o_created_at';

/**
 * The statements both SQL stores send as they are; each dialect's own (the usage upsert, the
 * daily reservation) stay with its store.
 *
 * @internal
 */
export function sharedStatements(dialect: SqlDialect) {
  const p = (index: number) => dialect.placeholder(index);
  return {
    ping: 'SELECT 1 AS ok',
    insertOrganisation: `INSERT INTO organisations (name, plan, requests_per_minute, tokens_per_minute, tokens_per_day, created_at) VALUES (${placeholders(dialect, 6)})`,
    selectOrganisation: `SELECT * FROM organisations WHERE name = ${p(1)}`,
    listOrganisations: 'SELECT * FROM organisations ORDER BY name',
    insertKey: `INSERT INTO api_keys (id, organisation, kind, hash, prefix, last4, require_signature, created_at, expires_at, allowed_models,
        requests_per_minute, tokens_per_minute, tokens_per_day) VALUES (${placeholders(dialect, 13)})`,
    selectKey: `SELECT * FROM api_keys WHERE id = ${p(1)}`,
    selectKeyByHash: `SELECT ${keyWithOrganisationColumns} FROM api_keys k JOIN organisations o ON o.name = k.organisation WHERE k.hash = ${p(1)}`,
    listKeys: 'SELECT * FROM api_keys ORDER BY created_at, id',
    listKeysOf: `SELECT * FROM api_keys WHERE organisation = ${p(1)} ORDER BY created_at, id`,
    revokeKey: `UPDATE api_keys SET revoked_at = ${p(1)} WHERE id = ${p(2)} AND revoked_at IS NULL`,
    selectKeyHash: `SELECT hash FROM api_keys WHERE id = ${p(1)}`,
    /** TRUE and FALSE are 1 and 0 in SQLite, booleans in PostgreSQL. */
    settleAbandonedUsage: `UPDATE usage SET settled = TRUE, abandoned = TRUE, interrupted = TRUE, updated_at = ${p(1)} WHERE settled = FALSE AND updated_at < ${p(2)}`,
    summariseUsage: `SELECT u.key_id, coalesce(k.prefix || '…' || k.last4, '') AS key_display, coalesce(k.kind, 'live') AS kind, u.model,
        count(*) AS requests, sum(u.prompt_tokens) AS prompt_tokens, coalesce(sum(u.cached_prompt_tokens), 0) AS cached_prompt_tokens,
        sum(u.completion_tokens) AS completion_tokens,
        ${dialect.countWhere('u.status >= 400')} AS errors, ${dialect.countWhere('u.interrupted')} AS interrupted
      FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id
      WHERE u.organisation = ${p(1)} AND u.created_at >= ${p(2)} GROUP BY u.key_id, u.model, k.prefix, k.last4, k.kind ORDER BY u.key_id, u.model`,
    listUsage: `SELECT * FROM usage WHERE organisation = ${p(1)} AND created_at >= ${p(2)} ORDER BY id`,
    insertAudit: `INSERT INTO audit_log (at, actor, action, subject, details, request_id, client_request_id) VALUES (${placeholders(dialect, 7)})`,
    listAudit: `SELECT * FROM audit_log WHERE at >= ${p(1)} ORDER BY id DESC LIMIT ${p(2)}`,
    addDailyTokens: `INSERT INTO daily_tokens (bucket, day, tokens) VALUES (${placeholders(dialect, 3)})
      ON CONFLICT (bucket, day) DO UPDATE SET tokens = daily_tokens.tokens + excluded.tokens`,
    readDailyTokens: `SELECT tokens FROM daily_tokens WHERE bucket = ${p(1)} AND day = ${p(2)}`,
    changesCursor: 'SELECT coalesce(max(id), 0) AS id FROM changes',
  };
}

/** @internal */
export type SharedStatements = ReturnType<typeof sharedStatements>;

/** The columns an organisation change sets, with their values, in a fixed order. @internal */
export function organisationChangeColumns(change: OrganisationChange): [column: string, value: unknown][] {
  const columns: [string, unknown][] = [];
  if (change.plan !== undefined) columns.push(['plan', change.plan]);
  for (const field of Object.keys(limitColumns) as (keyof LimitOverrides)[]) {
    const value = change.limits?.[field];
    if (value !== undefined) columns.push([limitColumns[field], limitToColumn(value)]);
  }
  for (const field of change.resetLimits ?? []) columns.push([limitColumns[field], null]);
  return columns;
}

/** The columns a key change sets, with their values, in a fixed order. @internal */
export function keyChangeColumns(change: KeyChange): [column: string, value: unknown][] {
  const columns: [string, unknown][] = [];
  if (change.expiresAt !== undefined) columns.push(['expires_at', change.expiresAt]);
  if (change.allowedModels !== undefined) columns.push(['allowed_models', change.allowedModels === null ? null : JSON.stringify(change.allowedModels)]);
  for (const field of Object.keys(limitColumns) as (keyof LimitOverrides)[]) {
    const value = change.limits?.[field];
    if (value !== undefined) columns.push([limitColumns[field], limitToColumn(value)]);
  }
  for (const field of change.resetLimits ?? []) columns.push([limitColumns[field], null]);
  if (change.rotation !== undefined) columns.push(['rotated_at', change.rotation.at], ['replaced_by', change.rotation.replacedBy]);
  return columns;
}

/**
 * `UPDATE <table> SET <columns> WHERE <key> = …`: the columns' values first, the key's last
 * in `params`. `columns` must not be empty.
 *
 * @internal
 */
export function updateStatement(dialect: SqlDialect, table: 'api_keys' | 'organisations', keyColumn: 'id' | 'name', columns: readonly [string, unknown][], key: string): { text: string; params: unknown[] } {
  const sets = columns.map(([column], index) => `${column} = ${dialect.placeholder(index + 1)}`).join(', ');
  return { text: `UPDATE ${table} SET ${sets} WHERE ${keyColumn} = ${dialect.placeholder(columns.length + 1)}`, params: [...columns.map(([, value]) => value), key] };
}

const dayMs = 86_400_000;

/**
 * The usage-per-day query (the day is `created_at` in whole UTC days). Rows come back in any
 * order: callers sort them with `sortDailyRows`, the same in every store whatever the collation.
 *
 * @internal
 */
export function dailyUsageQuery(dialect: SqlDialect, filter: DailyUsageFilter): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const where: string[] = [];
  const bind = (value: unknown) => dialect.placeholder(params.push(value));
  if (filter.organisation !== undefined) where.push(`u.organisation = ${bind(filter.organisation)}`);
  if (filter.keyId !== undefined) where.push(`u.key_id = ${bind(filter.keyId)}`);
  if (filter.model !== undefined) where.push(`u.model = ${bind(filter.model)}`);
  if (filter.since !== undefined) where.push(`u.created_at >= ${bind(filter.since)}`);
  if (filter.until !== undefined) where.push(`u.created_at < ${bind(filter.until)}`);
  const text = `SELECT u.created_at / ${dayMs} AS day_number, u.organisation, u.key_id, coalesce(k.prefix || '…' || k.last4, '') AS key_display,
      coalesce(k.kind, 'live') AS kind, u.model, count(*) AS requests, sum(u.prompt_tokens) AS prompt_tokens,
      coalesce(sum(u.cached_prompt_tokens), 0) AS cached_prompt_tokens, sum(u.completion_tokens) AS completion_tokens,
      ${dialect.countWhere('u.status >= 400')} AS errors, ${dialect.countWhere('u.interrupted')} AS interrupted
    FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id
    ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    GROUP BY u.created_at / ${dayMs}, u.organisation, u.key_id, u.model, k.prefix, k.last4, k.kind`;
  return { text, params };
}
