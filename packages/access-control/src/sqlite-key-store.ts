import { createRequire } from 'node:module';
import { randomBase62, type Plan } from '@quantum-chat/core';
import type BetterSqlite3 from 'better-sqlite3';
import type { ApiKeyRecord, KeyStore, Organisation, OrganisationChange, UsageRecord, UsageSummaryRow } from './key-store.js';
import type { LimitOverrides } from './plan-limits.js';
import { sqliteMigrations } from './sqlite-migrations.js';

type Row = Record<string, unknown>;
const limitColumns = { requestsPerMinute: 'requests_per_minute', tokensPerMinute: 'tokens_per_minute', tokensPerDay: 'tokens_per_day' } as const;

/** -1 in a column means "no limit" (`null`); NULL means "the plan default" (absent). */
function limitsFromRow(row: Row): LimitOverrides {
  const limits: LimitOverrides = {};
  for (const [field, column] of Object.entries(limitColumns) as [keyof LimitOverrides, string][]) {
    const value = row[column];
    if (typeof value === 'number') limits[field] = value < 0 ? null : value;
  }
  return limits;
}

function organisationFromRow(row: Row): Organisation {
  return { name: String(row.name), plan: row.plan as Plan, limits: limitsFromRow(row), createdAt: Number(row.created_at) };
}

function keyFromRow(row: Row): ApiKeyRecord {
  return {
    id: String(row.id),
    organisation: String(row.organisation),
    kind: row.kind === 'test' ? 'test' : 'live',
    hash: String(row.hash),
    prefix: String(row.prefix),
    last4: String(row.last4),
    requireSignature: row.require_signature === 1,
    revoked: row.revoked_at !== null,
    createdAt: Number(row.created_at),
  };
}

function openDatabase(path: string): BetterSqlite3.Database {
  // Loaded on use: better-sqlite3 is an optional peer, needed only by this store.
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(path, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // IMMEDIATE: two processes opening a new file at once must not both migrate it.
  db.transaction(() => {
    const version = Number(db.pragma('user_version', { simple: true }));
    for (let index = version; index < sqliteMigrations.length; index++) db.exec(sqliteMigrations[index]!);
    if (version < sqliteMigrations.length) db.pragma(`user_version = ${sqliteMigrations.length}`);
  }).immediate();
  return db;
}

/**
 * The embedded key store: one SQLite file (better-sqlite3, WAL), safe to share between
 * several server processes on one machine. Migrations run on open.
 *
 * @example
 * const store = createSqliteKeyStore('.data/quantum-chat.sqlite');
 */
export function createSqliteKeyStore(path: string, options: { now?: () => number } = {}): KeyStore {
  const now = options.now ?? Date.now;
  const db = openDatabase(path);
  const statements = {
    insertOrganisation: db.prepare(
      'INSERT INTO organisations (name, plan, requests_per_minute, tokens_per_minute, tokens_per_day, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    getOrganisation: db.prepare('SELECT * FROM organisations WHERE name = ?'),
    listOrganisations: db.prepare('SELECT * FROM organisations ORDER BY name'),
    insertKey: db.prepare(
      'INSERT INTO api_keys (id, organisation, kind, hash, prefix, last4, require_signature, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    findKey: db.prepare(
      `SELECT k.*, o.name AS o_name, o.plan AS o_plan, o.requests_per_minute AS o_rpm, o.tokens_per_minute AS o_tpm,
              o.tokens_per_day AS o_tpd, o.created_at AS o_created_at
       FROM api_keys k JOIN organisations o ON o.name = k.organisation WHERE k.hash = ?`,
    ),
    listKeys: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
    listKeysOf: db.prepare('SELECT * FROM api_keys WHERE organisation = ? ORDER BY created_at, id'),
    revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    getKey: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
    updatePlan: db.prepare('UPDATE organisations SET plan = ? WHERE name = ?'),
    updateLimit: Object.fromEntries(
      Object.entries(limitColumns).map(([field, column]) => [field, db.prepare(`UPDATE organisations SET ${column} = ? WHERE name = ?`)]),
    ) as Record<keyof LimitOverrides, BetterSqlite3.Statement>,
    insertUsage: db.prepare(
      `INSERT INTO usage (request_id, key_id, organisation, model, prompt_tokens, completion_tokens, status, interrupted, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    summariseUsage: db.prepare(
      `SELECT u.key_id, coalesce(k.prefix || '…' || k.last4, '') AS key_display, coalesce(k.kind, 'live') AS kind, u.model,
              count(*) AS requests, sum(u.prompt_tokens) AS prompt_tokens, sum(u.completion_tokens) AS completion_tokens,
              sum(u.status >= 400) AS errors, sum(u.interrupted) AS interrupted
       FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id
       WHERE u.organisation = ? AND u.created_at >= ? GROUP BY u.key_id, u.model ORDER BY u.key_id, u.model`,
    ),
    listUsage: db.prepare('SELECT * FROM usage WHERE organisation = ? AND created_at >= ? ORDER BY id'),
  };
  const toColumn = (value: number | null | undefined) => (value === undefined ? null : value === null ? -1 : value);

  function requireOrganisation(name: string): Organisation {
    const row = statements.getOrganisation.get(name) as Row | undefined;
    if (row === undefined) throw new Error(`There is no organisation named '${name}'.`);
    return organisationFromRow(row);
  }

  const updateOrganisation = db.transaction((name: string, change: OrganisationChange) => {
    requireOrganisation(name);
    if (change.plan !== undefined) statements.updatePlan.run(change.plan, name);
    for (const field of Object.keys(limitColumns) as (keyof LimitOverrides)[]) {
      const value = change.limits?.[field];
      if (value !== undefined) statements.updateLimit[field].run(toColumn(value), name);
    }
    for (const field of change.resetLimits ?? []) statements.updateLimit[field].run(null, name);
    return requireOrganisation(name);
  });

  return {
    async createOrganisation({ name, plan, limits = {} }) {
      const createdAt = now();
      statements.insertOrganisation.run(
        name, plan, toColumn(limits.requestsPerMinute), toColumn(limits.tokensPerMinute), toColumn(limits.tokensPerDay), createdAt,
      );
      return requireOrganisation(name);
    },
    async getOrganisation(name) {
      const row = statements.getOrganisation.get(name) as Row | undefined;
      return row && organisationFromRow(row);
    },
    async listOrganisations() {
      return (statements.listOrganisations.all() as Row[]).map(organisationFromRow);
    },
    async updateOrganisation(name, change) {
      return updateOrganisation(name, change);
    },
    async createKey(input) {
      requireOrganisation(input.organisation);
      const id = `key_${randomBase62(16)}`;
      const requireSignature = input.requireSignature ? 1 : 0;
      statements.insertKey.run(id, input.organisation, input.kind, input.hash, input.prefix, input.last4, requireSignature, now());
      return keyFromRow(statements.getKey.get(id) as Row);
    },
    async findKeyByHash(hash) {
      const row = statements.findKey.get(hash) as Row | undefined;
      if (row === undefined) return undefined;
      const organisation = organisationFromRow({
        name: row.o_name, plan: row.o_plan, requests_per_minute: row.o_rpm, tokens_per_minute: row.o_tpm,
        tokens_per_day: row.o_tpd, created_at: row.o_created_at,
      });
      return { key: keyFromRow(row), organisation };
    },
    async listKeys(filter = {}) {
      const rows = filter.organisation === undefined ? statements.listKeys.all() : statements.listKeysOf.all(filter.organisation);
      return (rows as Row[]).map(keyFromRow);
    },
    async revokeKey(id) {
      if (statements.getKey.get(id) === undefined) return false;
      statements.revokeKey.run(now(), id);
      return true;
    },
    async recordUsage(record: UsageRecord) {
      statements.insertUsage.run(
        record.requestId, record.keyId, record.organisation, record.model, record.promptTokens, record.completionTokens,
        record.status, record.interrupted ? 1 : 0, record.timestamp,
      );
    },
    async summariseUsage({ organisation, since }) {
      return (statements.summariseUsage.all(organisation, since ?? 0) as Row[]).map(
        (row): UsageSummaryRow => ({
          keyId: String(row.key_id),
          keyDisplay: String(row.key_display),
          kind: row.kind === 'test' ? 'test' : 'live',
          model: String(row.model),
          requests: Number(row.requests),
          promptTokens: Number(row.prompt_tokens),
          completionTokens: Number(row.completion_tokens),
          errors: Number(row.errors),
          interrupted: Number(row.interrupted),
        }),
      );
    },
    async listUsage({ organisation, since }) {
      return (statements.listUsage.all(organisation, since ?? 0) as Row[]).map(
        (row): UsageRecord => ({
          requestId: String(row.request_id),
          keyId: String(row.key_id),
          organisation: String(row.organisation),
          model: String(row.model),
          promptTokens: Number(row.prompt_tokens),
          completionTokens: Number(row.completion_tokens),
          status: Number(row.status),
          interrupted: row.interrupted === 1,
          timestamp: Number(row.created_at),
        }),
      );
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
