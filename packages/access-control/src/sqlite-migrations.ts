/**
 * The SQLite schema, one migration per entry; `PRAGMA user_version` counts the applied ones.
 * Append only: a shipped migration is never edited.
 *
 * Limit columns: NULL keeps the plan default, -1 lifts the limit, a positive number sets it.
 *
 * @internal
 */
export const sqliteMigrations: readonly string[] = [
  `CREATE TABLE organisations (
     name TEXT PRIMARY KEY,
     plan TEXT NOT NULL CHECK (plan IN ('free', 'elite')),
     requests_per_minute INTEGER,
     tokens_per_minute INTEGER,
     tokens_per_day INTEGER,
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     organisation TEXT NOT NULL REFERENCES organisations (name),
     kind TEXT NOT NULL CHECK (kind IN ('live', 'test')),
     hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     last4 TEXT NOT NULL,
     require_signature INTEGER NOT NULL DEFAULT 0,
     revoked_at INTEGER,
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX api_keys_by_organisation ON api_keys (organisation);
   CREATE TABLE usage (
     id INTEGER PRIMARY KEY,
     request_id TEXT NOT NULL,
     key_id TEXT NOT NULL,
     organisation TEXT NOT NULL,
     model TEXT NOT NULL,
     prompt_tokens INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     status INTEGER NOT NULL,
     interrupted INTEGER NOT NULL,
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX usage_by_organisation ON usage (organisation, created_at);`,
];
