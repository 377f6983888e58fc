import { createRequire } from 'node:module';
import { randomBase62 } from '@quantum-chat/core';
import type postgres from 'postgres';
import type { KeyStore, OrganisationChange, StoreChange, UsageRecord } from './key-store.js';
import type { LimitOverrides } from './plan-limits.js';
import { postgresMigrations } from './postgres-migrations.js';
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

export interface PostgresKeyStoreOptions {
  now?: () => number;
  /** Connections in the pool; 10 by default. */
  maxConnections?: number;
  /** Reporting only: the change listener's connection lost or back. */
  onListenerStateChange?: (listening: boolean) => void;
}

const changeChannel = 'quantum_chat_changes';
/** Any constant: serialises migrations run by several instances starting at once. */
const migrationLock = 7_303_171;

const keyColumns = 'k.*, o.name AS o_name, o.plan AS o_plan, o.requests_per_minute AS o_requests_per_minute, o.tokens_per_minute AS o_tokens_per_minute, o.tokens_per_day AS o_tokens_per_day, o.created_at AS o_created_at';

const summariseUsage = `SELECT u.key_id, coalesce(k.prefix || '…' || k.last4, '') AS key_display, coalesce(k.kind, 'live') AS kind, u.model,
    count(*) AS requests, sum(u.prompt_tokens) AS prompt_tokens, coalesce(sum(u.cached_prompt_tokens), 0) AS cached_prompt_tokens,
    sum(u.completion_tokens) AS completion_tokens,
    count(*) FILTER (WHERE u.status >= 400) AS errors, count(*) FILTER (WHERE u.interrupted) AS interrupted
  FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id
  WHERE u.organisation = $1 AND u.created_at >= $2 GROUP BY u.key_id, u.model, k.prefix, k.last4, k.kind ORDER BY u.key_id, u.model`;

/** The driver's and the socket's words for a connection that went away. */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('CONNECTION_') || code === 'ECONNRESET' || code === 'EPIPE' || code === '57P01');
}

function parseChange(payload: string): StoreChange | undefined {
  const colon = payload.indexOf(':');
  const kind = payload.slice(0, colon);
  const subject = payload.slice(colon + 1);
  if (kind === 'key') return { kind: 'key', hash: subject };
  if (kind === 'organisation') return { kind: 'organisation', name: subject };
  return undefined;
}

/**
 * The usage upsert: the rows come as one JSON array, in lock order (a function scan keeps it).
 * Why one JSON parameter: a `VALUES` list of n rows was a new statement for every group size,
 * parsed, described (a second round trip) and planned on each write; this one text is
 * prepared once per connection. The parameter is text (then cast): a `json` one the driver
 * would encode a second time.
 */
const upsertUsageRows = `INSERT INTO usage (${usageColumns.join(', ')})
  SELECT ${usageColumns.join(', ')} FROM json_populate_recordset(NULL::usage, $1::text::json)
  ON CONFLICT (usage_id) DO UPDATE SET ${usageUpdatedColumns.map((column) => `${column} = EXCLUDED.${column}`).join(', ')}
  WHERE NOT usage.settled OR (usage.abandoned AND NOT EXCLUDED.abandoned AND EXCLUDED.settled)`;

/** The rows as the JSON array `upsertUsageRows` reads: objects keyed by column name. */
function usageRowsAsJson(records: readonly UsageRecord[], updatedAt: number): string {
  return JSON.stringify(records.map((record) => {
    const values = usageToValues(record, updatedAt, (value) => value);
    return Object.fromEntries(usageColumns.map((column, index) => [column, values[index]]));
  }));
}

/**
 * The store for several hosts: PostgreSQL through the `postgres` driver (an optional peer
 * dependency). Migrations run on first use (and by `migrate()`), serialised by an advisory lock
 * so that instances starting together do not race. Daily counts are atomic conditional
 * updates; key and organisation changes reach every instance through `LISTEN/NOTIFY`.
 *
 * @example
 * const store = createPostgresKeyStore(process.env.DATABASE_URL!);
 */
export function createPostgresKeyStore(url: string, options: PostgresKeyStoreOptions = {}): KeyStore {
  const now = options.now ?? Date.now;
  // Loaded on use: postgres is an optional peer, needed only by this store.
  const connect = createRequire(import.meta.url)('postgres') as typeof postgres;
  const sql = connect(url, {
    max: options.maxConnections ?? 10,
    connect_timeout: 2,
    idle_timeout: 60,
    onnotice: () => undefined,
    // No array types are used: skip the type query each new connection would run.
    fetch_types: false,
    // The driver's default waits up to 20 s between connection attempts after a few failures:
    // a server back after an outage would stay unused that long. At most 500 ms here.
    backoff: (attempt: number) => Math.min(0.05 * 2 ** attempt, 0.5),
    // A query that hangs (a lock, a stopped server) must not hold a connection for ever.
    connection: { statement_timeout: 10_000, application_name: 'quantum-chat' },
  });

  let migrated: Promise<{ from: number; to: number }> | undefined;
  /** Runs the migrations now (what `migrate()` does); every query first waits for one such run. */
  function runMigrations() {
    migrated = sql
      .begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${migrationLock})`;
        await tx`CREATE TABLE IF NOT EXISTS quantum_chat_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)`;
        const [row] = await tx`SELECT coalesce(max(version), 0)::int AS version FROM quantum_chat_migrations`;
        const from = Number(row!.version);
        for (let index = from; index < postgresMigrations.length; index++) {
          await tx.unsafe(postgresMigrations[index]!).simple();
          await tx`INSERT INTO quantum_chat_migrations (version, applied_at) VALUES (${index + 1}, ${now()})`;
        }
        return { from, to: Math.max(from, postgresMigrations.length) };
      })
      .catch((error: unknown) => {
        migrated = undefined;
        throw error;
      });
    return migrated;
  }
  const migrate = () => migrated ?? runMigrations();
  /**
   * Every query waits for the schema. A read that met a connection the server closed (it
   * restarted) is tried once more on a fresh one; writes are not, as they may have committed.
   */
  async function query(text: string, params: readonly unknown[] = []): Promise<Row[]> {
    await migrate();
    try {
      return (await sql.unsafe(text, params as never[])) as unknown as Row[];
    } catch (error) {
      if (!text.startsWith('SELECT') || !connectionLost(error)) throw error;
      return (await sql.unsafe(text, params as never[])) as unknown as Row[];
    }
  }
  const one = async (text: string, params: readonly unknown[] = []) => (await query(text, params))[0];

  const listeners = new Set<(change: StoreChange) => void>();
  const emit = (change: StoreChange) => {
    for (const listener of listeners) listener(change);
  };
  let listening: Promise<unknown> | undefined;
  let listenedBefore = false;
  let closed = false;

  /** LISTEN on a connection of its own; the driver reconnects it, and a failed start is retried every second. */
  function startListening(): void {
    const started = sql.listen(
      changeChannel,
      (payload) => {
        const change = parseChange(payload);
        if (change !== undefined) emit(change);
      },
      () => {
        // Called on every (re)connection: what changed while disconnected was never heard.
        if (listenedBefore) emit({ kind: 'reset' });
        listenedBefore = true;
        options.onListenerStateChange?.(true);
      },
    );
    listening = started;
    started.catch(() => {
      options.onListenerStateChange?.(false);
      if (closed) return;
      setTimeout(() => {
        if (!closed && listening === started) startListening();
      }, 1000).unref();
    });
  }

  const store: KeyStore = {
    migrate: runMigrations,
    async ping() {
      await query('SELECT 1');
    },
    async createOrganisation({ name, plan, limits = {} }) {
      try {
        await query('INSERT INTO organisations (name, plan, requests_per_minute, tokens_per_minute, tokens_per_day, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          name, plan, limitToColumn(limits.requestsPerMinute), limitToColumn(limits.tokensPerMinute), limitToColumn(limits.tokensPerDay), now(),
        ]);
      } catch (error) {
        if (isUniqueViolation(error)) throw new Error(`The organisation '${name}' already exists.`);
        throw error;
      }
      return (await store.getOrganisation(name))!;
    },
    async getOrganisation(name) {
      const row = await one('SELECT * FROM organisations WHERE name = $1', [name]);
      return row === undefined ? undefined : organisationFromRow(row);
    },
    async listOrganisations() {
      return (await query('SELECT * FROM organisations ORDER BY name')).map((row) => organisationFromRow(row));
    },
    async updateOrganisation(name: string, change: OrganisationChange) {
      await migrate();
      const sets: string[] = [];
      const params: unknown[] = [name];
      if (change.plan !== undefined) sets.push(`plan = $${params.push(change.plan)}`);
      for (const field of Object.keys(limitColumns) as (keyof LimitOverrides)[]) {
        const value = change.limits?.[field];
        if (value !== undefined) sets.push(`${limitColumns[field]} = $${params.push(limitToColumn(value))}`);
      }
      for (const field of change.resetLimits ?? []) sets.push(`${limitColumns[field]} = NULL`);
      const row =
        sets.length === 0
          ? await one('SELECT * FROM organisations WHERE name = $1', params)
          : await one(`UPDATE organisations SET ${sets.join(', ')} WHERE name = $1 RETURNING *`, params);
      if (row === undefined) throw new Error(`There is no organisation named '${name}'.`);
      emit({ kind: 'organisation', name });
      return organisationFromRow(row);
    },
    async createKey(input) {
      const id = `key_${randomBase62(16)}`;
      const limits = input.limits ?? {};
      try {
        await query(
          `INSERT INTO api_keys (id, organisation, kind, hash, prefix, last4, require_signature, created_at, expires_at, allowed_models,
             requests_per_minute, tokens_per_minute, tokens_per_day) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
          [
            id, input.organisation, input.kind, input.hash, input.prefix, input.last4, input.requireSignature ?? false, now(), input.expiresAt ?? null,
            input.allowedModels ? JSON.stringify(input.allowedModels) : null,
            limitToColumn(limits.requestsPerMinute), limitToColumn(limits.tokensPerMinute), limitToColumn(limits.tokensPerDay),
          ],
        );
      } catch (error) {
        if ((error as { code?: string }).code === '23503') throw new Error(`There is no organisation named '${input.organisation}'.`);
        if (isUniqueViolation(error)) throw new Error('A key with this hash already exists.');
        throw error;
      }
      return (await store.getKey(id))!;
    },
    async getKey(id) {
      const row = await one('SELECT * FROM api_keys WHERE id = $1', [id]);
      return row === undefined ? undefined : keyFromRow(row);
    },
    async findKeyByHash(hash) {
      const row = await one(`SELECT ${keyColumns} FROM api_keys k JOIN organisations o ON o.name = k.organisation WHERE k.hash = $1`, [hash]);
      return row === undefined ? undefined : { key: keyFromRow(row), organisation: organisationFromRow(row, 'o_') };
    },
    async listKeys(filter = {}) {
      const rows =
        filter.organisation === undefined
          ? await query('SELECT * FROM api_keys ORDER BY created_at, id')
          : await query('SELECT * FROM api_keys WHERE organisation = $1 ORDER BY created_at, id', [filter.organisation]);
      return rows.map(keyFromRow);
    },
    async revokeKey(id) {
      await query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now(), id]);
      const found = await one('SELECT hash FROM api_keys WHERE id = $1', [id]);
      if (found === undefined) return false;
      // This process's subscribers hear it at once; the others through NOTIFY.
      emit({ kind: 'key', hash: String(found.hash) });
      return true;
    },
    async updateKey(id, change) {
      const columns = keyChangeColumns(change);
      const row =
        columns.length === 0
          ? await one('SELECT * FROM api_keys WHERE id = $1', [id])
          : await one(`UPDATE api_keys SET ${columns.map(([column], index) => `${column} = $${index + 2}`).join(', ')} WHERE id = $1 RETURNING *`, [id, ...columns.map(([, value]) => value)]);
      if (row === undefined) return undefined;
      const key = keyFromRow(row);
      // This process's subscribers hear it at once; the others through NOTIFY.
      emit({ kind: 'key', hash: key.hash });
      return key;
    },
    async writeUsage(records: readonly UsageRecord[]) {
      if (records.length === 0) return;
      await migrate();
      // One row per usage id (the last write wins): ON CONFLICT cannot touch a row twice.
      const latest = [...new Map(records.map((record) => [record.usageId, record])).values()];
      const updatedAt = now();
      await sql.unsafe(upsertUsageRows, [usageRowsAsJson(latest, updatedAt)], { prepare: true });
    },
    async settleAbandonedUsage(before) {
      const rows = await query('UPDATE usage SET settled = true, abandoned = true, interrupted = true, updated_at = $1 WHERE NOT settled AND updated_at < $2 RETURNING id', [now(), before]);
      return rows.length;
    },
    async summariseUsage({ organisation, since }) {
      return (await query(summariseUsage, [organisation, since ?? 0])).map(summaryFromRow);
    },
    async listUsage({ organisation, since }) {
      return (await query('SELECT * FROM usage WHERE organisation = $1 AND created_at >= $2 ORDER BY id', [organisation, since ?? 0])).map(usageFromRow);
    },
    async summariseUsageByDay(filter) {
      const { text, params } = dailyUsageQuery(filter, (index) => `$${index}`, 'count(*) FILTER (WHERE u.status >= 400)', 'count(*) FILTER (WHERE u.interrupted)');
      return sortDailyRows((await query(text, params)).map(dailyUsageFromRow));
    },
    async writeAudit(entry) {
      await query('INSERT INTO audit_log (at, actor, action, subject, details, request_id, client_request_id) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        entry.at, entry.actor, entry.action, entry.subject, JSON.stringify(entry.details), entry.requestId, entry.clientRequestId ?? null,
      ]);
    },
    async listAudit({ since, limit } = {}) {
      const rows = await query('SELECT * FROM audit_log WHERE at >= $1 ORDER BY id DESC LIMIT $2', [since ?? 0, Math.min(limit ?? 100, maxAuditEntries)]);
      return rows.map(auditFromRow);
    },
    async reserveDailyTokens({ bucket, day, tokens, limit }) {
      const added = await one(
        `INSERT INTO daily_tokens (bucket, day, tokens) SELECT $1, $2, $3::bigint WHERE $3::bigint <= $4::bigint
         ON CONFLICT (bucket, day) DO UPDATE SET tokens = daily_tokens.tokens + EXCLUDED.tokens WHERE daily_tokens.tokens + EXCLUDED.tokens <= $4::bigint
         RETURNING tokens`,
        [bucket, day, tokens, limit],
      );
      if (added !== undefined) return { admitted: true, total: Number(added.tokens) };
      return { admitted: false, total: await store.readDailyTokens({ bucket, day }) };
    },
    async addDailyTokens({ bucket, day, tokens }) {
      await query(
        'INSERT INTO daily_tokens (bucket, day, tokens) VALUES ($1, $2, $3) ON CONFLICT (bucket, day) DO UPDATE SET tokens = daily_tokens.tokens + EXCLUDED.tokens',
        [bucket, day, tokens],
      );
    },
    async readDailyTokens({ bucket, day }) {
      const row = await one('SELECT tokens FROM daily_tokens WHERE bucket = $1 AND day = $2', [bucket, day]);
      return row === undefined ? 0 : Number(row.tokens);
    },
    subscribe(listener) {
      listeners.add(listener);
      if (listening === undefined) startListening();
      return () => {
        listeners.delete(listener);
      };
    },
    async close() {
      closed = true;
      listeners.clear();
      await sql.end({ timeout: 1 });
    },
  };
  return store;
}
