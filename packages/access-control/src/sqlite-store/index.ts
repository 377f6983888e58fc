import { randomBase62 } from '@quantum-chat/core';
import type { KeyStore, OrganisationChange, StoreChange, UsageRecord } from './key-store.js';
import type { LimitOverrides } from './plan-limits.js';
import { startSqliteExecutor, type SqlOp } from './sqlite-executor.js';
import { sqliteMigrations } from './sqlite-migrations.js';
import { sortDailyRows } from './summarise-usage.js';
import {
  auditFromRow,
  dailyUsageFromRow,
  dailyUsageQuery,
  isUniqueViolation,
  keyChangeColumns,
  keyFromRow,
  maxAuditEntries,
  limitColumns,
  limitToColumn,
  organisationFromRow,
  summaryFromRow,
  usageColumns,
  usageFromRow,
  usageToValues,
  usageUpdatedColumns,
  type Row,
} from './store-rows.js';

export interface SqliteKeyStoreOptions {
  now?: () => number;
  /** How often other processes' changes to keys and organisations are read; 100 ms by default. */
  changePollMs?: number;
}

const keyColumns = 'k.*, o.name AS o_name, o.plan AS o_plan, o.requests_per_minute AS o_requests_per_minute, o.tokens_per_minute AS o_tokens_per_minute, o.tokens_per_day AS o_tokens_per_day, o.created_at AS o_created_at';

const upsertUsage = `INSERT INTO usage (${usageColumns.join(', ')}) VALUES (${usageColumns.map(() => '?').join(', ')})
  ON CONFLICT (usage_id) DO UPDATE SET ${usageUpdatedColumns.map((column) => `${column} = excluded.${column}`).join(', ')}
  WHERE usage.settled = 0 OR (usage.abandoned = 1 AND excluded.abandoned = 0 AND excluded.settled = 1)`;

const summariseUsage = `SELECT u.key_id, coalesce(k.prefix || '…' || k.last4, '') AS key_display, coalesce(k.kind, 'live') AS kind, u.model,
    count(*) AS requests, sum(u.prompt_tokens) AS prompt_tokens, coalesce(sum(u.cached_prompt_tokens), 0) AS cached_prompt_tokens,
    sum(u.completion_tokens) AS completion_tokens,
    sum(u.status >= 400) AS errors, sum(u.interrupted) AS interrupted
  FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id
  WHERE u.organisation = ? AND u.created_at >= ? GROUP BY u.key_id, u.model ORDER BY u.key_id, u.model`;

/** Usage rows are written with a short wait on another process's lock: the recorder retries them later. */
const usageLockWaitMs = 250;

/** Reservations fail fast on a lock: the caller's deadline decides what happens then. */
const reservationLockWaitMs = 1000;

/**
 * The embedded store: one SQLite file (better-sqlite3 in a worker thread, WAL), safe to share
 * between several server processes on one machine. No call blocks the event loop, even while
 * another process holds the write lock: the worker retries the write and answers reads
 * meanwhile. The schema is migrated on first use; the file is created readable by its owner
 * only (0600).
 *
 * @example
 * const store = createSqliteKeyStore('.data/quantum-chat.sqlite');
 */
export function createSqliteKeyStore(path: string, options: SqliteKeyStoreOptions = {}): KeyStore {
  const now = options.now ?? Date.now;
  const executor = startSqliteExecutor(path, sqliteMigrations);
  const one = async (sql: string, params: readonly unknown[] = []) => (await executor.execute([{ sql, params, mode: 'get' }]))[0] as Row | null;
  const all = async (sql: string, params: readonly unknown[] = []) => (await executor.execute([{ sql, params, mode: 'all' }]))[0] as Row[];

  const listeners = new Set<(change: StoreChange) => void>();
  let poller: ReturnType<typeof setInterval> | undefined;
  /** The last change seen; read at the first poll, so only later changes are reported. */
  let cursor: number | undefined;
  let polling = false;
  let polls = 0;

  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      if (cursor === undefined) {
        cursor = Number((await one('SELECT coalesce(max(id), 0) AS id FROM changes'))!.id);
        return;
      }
      const rows = await all('SELECT id, kind, subject FROM changes WHERE id > ? ORDER BY id LIMIT 1000', [cursor]);
      if (rows.length === 0) return;
      cursor = Number(rows.at(-1)!.id);
      for (const row of rows) {
        const change: StoreChange = row.kind === 'key' ? { kind: 'key', hash: String(row.subject) } : { kind: 'organisation', name: String(row.subject) };
        for (const listener of listeners) listener(change);
      }
      // The log only needs to outlive the slowest poller; keep the last 10,000 changes.
      if (++polls % 100 === 0) await executor.execute([{ sql: 'DELETE FROM changes WHERE id <= ?', params: [Number(rows.at(-1)!.id) - 10_000], mode: 'run' }], { lockWaitMs: 0 });
    } catch {
      // The next tick tries again from the same cursor.
    } finally {
      polling = false;
    }
  }

  async function requireKeyOrganisation<T>(work: Promise<T>, organisation: string): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new Error(`There is no organisation named '${organisation}'.`);
      throw error;
    }
  }

  const store: KeyStore = {
    migrate: () => executor.migrate(),
    async ping() {
      await one('SELECT 1 AS ok');
    },
    async createOrganisation({ name, plan, limits = {} }) {
      try {
        await executor.execute([
          {
            sql: 'INSERT INTO organisations (name, plan, requests_per_minute, tokens_per_minute, tokens_per_day, created_at) VALUES (?, ?, ?, ?, ?, ?)',
            params: [name, plan, limitToColumn(limits.requestsPerMinute), limitToColumn(limits.tokensPerMinute), limitToColumn(limits.tokensPerDay), now()],
            mode: 'run',
          },
        ]);
      } catch (error) {
        if (isUniqueViolation(error)) throw new Error(`The organisation '${name}' already exists.`);
        throw error;
      }
      return (await store.getOrganisation(name))!;
    },
    async getOrganisation(name) {
      const row = await one('SELECT * FROM organisations WHERE name = ?', [name]);
      return row === null ? undefined : organisationFromRow(row);
    },
    async listOrganisations() {
      return (await all('SELECT * FROM organisations ORDER BY name')).map((row) => organisationFromRow(row));
    },
    async updateOrganisation(name: string, change: OrganisationChange) {
      const ops: SqlOp[] = [];
      if (change.plan !== undefined) ops.push({ sql: 'UPDATE organisations SET plan = ? WHERE name = ?', params: [change.plan, name], mode: 'run' });
      for (const field of Object.keys(limitColumns) as (keyof LimitOverrides)[]) {
        const value = change.limits?.[field];
        if (value !== undefined) ops.push({ sql: `UPDATE organisations SET ${limitColumns[field]} = ? WHERE name = ?`, params: [limitToColumn(value), name], mode: 'run' });
      }
      for (const field of change.resetLimits ?? []) ops.push({ sql: `UPDATE organisations SET ${limitColumns[field]} = NULL WHERE name = ?`, params: [name], mode: 'run' });
      ops.push({ sql: 'SELECT * FROM organisations WHERE name = ?', params: [name], mode: 'get' });
      const row = (await executor.execute(ops, { transaction: true })).at(-1) as Row | null;
      if (row === null) throw new Error(`There is no organisation named '${name}'.`);
      for (const listener of listeners) listener({ kind: 'organisation', name });
      return organisationFromRow(row);
    },
    async createKey(input) {
      const id = `key_${randomBase62(16)}`;
      const limits = input.limits ?? {};
      const insert = executor.execute([
        {
          sql: `INSERT INTO api_keys (id, organisation, kind, hash, prefix, last4, require_signature, created_at, expires_at, allowed_models,
                  requests_per_minute, tokens_per_minute, tokens_per_day) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          params: [
            id, input.organisation, input.kind, input.hash, input.prefix, input.last4, input.requireSignature ? 1 : 0, now(), input.expiresAt ?? null,
            input.allowedModels ? JSON.stringify(input.allowedModels) : null,
            limitToColumn(limits.requestsPerMinute), limitToColumn(limits.tokensPerMinute), limitToColumn(limits.tokensPerDay),
          ],
          mode: 'run',
        },
      ]);
      try {
        await requireKeyOrganisation(insert, input.organisation);
      } catch (error) {
        if (isUniqueViolation(error)) throw new Error('A key with this hash already exists.');
        throw error;
      }
      return (await store.getKey(id))!;
    },
    async getKey(id) {
      const row = await one('SELECT * FROM api_keys WHERE id = ?', [id]);
      return row === null ? undefined : keyFromRow(row);
    },
    async findKeyByHash(hash) {
      const row = await one(`SELECT ${keyColumns} FROM api_keys k JOIN organisations o ON o.name = k.organisation WHERE k.hash = ?`, [hash]);
      return row === null ? undefined : { key: keyFromRow(row), organisation: organisationFromRow(row, 'o_') };
    },
    async listKeys(filter = {}) {
      const rows =
        filter.organisation === undefined
          ? await all('SELECT * FROM api_keys ORDER BY created_at, id')
          : await all('SELECT * FROM api_keys WHERE organisation = ? ORDER BY created_at, id', [filter.organisation]);
      return rows.map(keyFromRow);
    },
    async revokeKey(id) {
      const [, found] = await executor.execute(
        [
          { sql: 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', params: [now(), id], mode: 'run' },
          { sql: 'SELECT hash FROM api_keys WHERE id = ?', params: [id], mode: 'get' },
        ],
        { transaction: true },
      );
      if (found === null) return false;
      // This process's own subscribers hear it at once, not at the next poll.
      for (const listener of listeners) listener({ kind: 'key', hash: String((found as Row).hash) });
      return true;
    },
    async updateKey(id, change) {
      const columns = keyChangeColumns(change);
      const ops: SqlOp[] = [];
      if (columns.length > 0) {
        ops.push({ sql: `UPDATE api_keys SET ${columns.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`, params: [...columns.map(([, value]) => value), id], mode: 'run' });
      }
      ops.push({ sql: 'SELECT * FROM api_keys WHERE id = ?', params: [id], mode: 'get' });
      const row = (await executor.execute(ops, { transaction: true })).at(-1) as Row | null;
      if (row === null) return undefined;
      const key = keyFromRow(row);
      for (const listener of listeners) listener({ kind: 'key', hash: key.hash });
      return key;
    },
    async writeUsage(records: readonly UsageRecord[]) {
      if (records.length === 0) return;
      const updatedAt = now();
      const rows = records.map((record) => usageToValues(record, updatedAt, (value) => (value ? 1 : 0)));
      await executor.execute([{ sql: upsertUsage, rows, mode: 'runEach' }], { transaction: true, lockWaitMs: usageLockWaitMs });
    },
    async settleAbandonedUsage(before) {
      const [result] = await executor.execute(
        [{ sql: 'UPDATE usage SET settled = 1, abandoned = 1, interrupted = 1, updated_at = ? WHERE settled = 0 AND updated_at < ?', params: [now(), before], mode: 'run' }],
        { lockWaitMs: usageLockWaitMs },
      );
      return (result as { changes: number }).changes;
    },
    async summariseUsage({ organisation, since }) {
      return (await all(summariseUsage, [organisation, since ?? 0])).map(summaryFromRow);
    },
    async listUsage({ organisation, since }) {
      return (await all('SELECT * FROM usage WHERE organisation = ? AND created_at >= ? ORDER BY id', [organisation, since ?? 0])).map(usageFromRow);
    },
    async summariseUsageByDay(filter) {
      const { text, params } = dailyUsageQuery(filter, () => '?', 'sum(u.status >= 400)', 'sum(u.interrupted)');
      return sortDailyRows((await all(text, params)).map(dailyUsageFromRow));
    },
    async writeAudit(entry) {
      await executor.execute([
        {
          sql: 'INSERT INTO audit_log (at, actor, action, subject, details, request_id, client_request_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
          params: [entry.at, entry.actor, entry.action, entry.subject, JSON.stringify(entry.details), entry.requestId, entry.clientRequestId ?? null],
          mode: 'run',
        },
      ]);
    },
    async listAudit({ since, limit } = {}) {
      const rows = await all('SELECT * FROM audit_log WHERE at >= ? ORDER BY id DESC LIMIT ?', [since ?? 0, Math.min(limit ?? 100, maxAuditEntries)]);
      return rows.map(auditFromRow);
    },
    async reserveDailyTokens({ bucket, day, tokens, limit }) {
      const [added, current] = await executor.execute(
        [
          {
            sql: `INSERT INTO daily_tokens (bucket, day, tokens) SELECT ?, ?, ? WHERE ? <= ?
                  ON CONFLICT (bucket, day) DO UPDATE SET tokens = tokens + excluded.tokens WHERE daily_tokens.tokens + excluded.tokens <= ?
                  RETURNING tokens`,
            params: [bucket, day, tokens, tokens, limit, limit],
            mode: 'get',
          },
          { sql: 'SELECT tokens FROM daily_tokens WHERE bucket = ? AND day = ?', params: [bucket, day], mode: 'get' },
        ],
        { transaction: true, lockWaitMs: reservationLockWaitMs },
      );
      if (added !== null) return { admitted: true, total: Number((added as Row).tokens) };
      return { admitted: false, total: current === null ? 0 : Number((current as Row).tokens) };
    },
    async addDailyTokens({ bucket, day, tokens }) {
      await executor.execute([
        {
          sql: 'INSERT INTO daily_tokens (bucket, day, tokens) VALUES (?, ?, ?) ON CONFLICT (bucket, day) DO UPDATE SET tokens = tokens + excluded.tokens',
          params: [bucket, day, tokens],
          mode: 'run',
        },
      ]);
    },
    async readDailyTokens({ bucket, day }) {
      const row = await one('SELECT tokens FROM daily_tokens WHERE bucket = ? AND day = ?', [bucket, day]);
      return row === null ? 0 : Number(row.tokens);
    },
    subscribe(listener) {
      listeners.add(listener);
      if (poller === undefined) {
        cursor = undefined;
        void poll();
        poller = setInterval(() => void poll(), options.changePollMs ?? 100);
        poller.unref();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          clearInterval(poller);
          poller = undefined;
        }
      };
    },
    async close() {
      clearInterval(poller);
      poller = undefined;
      listeners.clear();
      await executor.close();
    },
  };
  return store;
}
