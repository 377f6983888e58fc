/**
 * The SQLite schema, one migration per entry; `PRAGMA user_version` counts the applied ones.
 * Append only: a shipped migration is never edited.
 *
 * Limit columns: NULL keeps the plan (or organisation) default, -1 lifts the limit, a positive
 * number sets it.
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

  // Keys that can expire, be limited to models and carry their own limits; an idempotent,
  // batched usage ledger whose running rows settle the day's count; the daily counts; and a
  // change log that other processes poll to drop cached keys.
  `ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
   ALTER TABLE api_keys ADD COLUMN allowed_models TEXT;
   ALTER TABLE api_keys ADD COLUMN requests_per_minute INTEGER;
   ALTER TABLE api_keys ADD COLUMN tokens_per_minute INTEGER;
   ALTER TABLE api_keys ADD COLUMN tokens_per_day INTEGER;
   ALTER TABLE usage ADD COLUMN usage_id TEXT;
   UPDATE usage SET usage_id = 'legacy_' || id;
   CREATE UNIQUE INDEX usage_by_usage_id ON usage (usage_id);
   ALTER TABLE usage ADD COLUMN settled INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE usage ADD COLUMN abandoned INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage ADD COLUMN daily_bucket TEXT;
   ALTER TABLE usage ADD COLUMN daily_day TEXT;
   ALTER TABLE usage ADD COLUMN daily_charged INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
   UPDATE usage SET updated_at = created_at;
   CREATE INDEX usage_unsettled ON usage (updated_at) WHERE settled = 0;
   CREATE TABLE daily_tokens (
     bucket TEXT NOT NULL,
     day TEXT NOT NULL,
     tokens INTEGER NOT NULL,
     PRIMARY KEY (bucket, day)
   ) STRICT;
   CREATE TRIGGER usage_settles_daily_on_insert AFTER INSERT ON usage
   WHEN NEW.daily_bucket IS NOT NULL AND NEW.settled = 1
   BEGIN
     INSERT INTO daily_tokens (bucket, day, tokens)
     VALUES (NEW.daily_bucket, NEW.daily_day, NEW.prompt_tokens + NEW.completion_tokens - NEW.daily_charged)
     ON CONFLICT (bucket, day) DO UPDATE SET tokens = tokens + excluded.tokens;
   END;
   CREATE TRIGGER usage_settles_daily_on_update AFTER UPDATE ON usage
   WHEN NEW.daily_bucket IS NOT NULL
   BEGIN
     INSERT INTO daily_tokens (bucket, day, tokens)
     VALUES (
       NEW.daily_bucket, NEW.daily_day,
       (CASE WHEN NEW.settled = 1 THEN NEW.prompt_tokens + NEW.completion_tokens ELSE NEW.daily_charged END)
       - (CASE WHEN OLD.settled = 1 THEN OLD.prompt_tokens + OLD.completion_tokens ELSE OLD.daily_charged END)
     )
     ON CONFLICT (bucket, day) DO UPDATE SET tokens = tokens + excluded.tokens;
   END;
   CREATE TABLE changes (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     kind TEXT NOT NULL,
     subject TEXT NOT NULL
   ) STRICT;
   CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys
   BEGIN INSERT INTO changes (kind, subject) VALUES ('key', NEW.hash); END;
   CREATE TRIGGER organisations_changed AFTER UPDATE ON organisations
   BEGIN INSERT INTO changes (kind, subject) VALUES ('organisation', NEW.name); END;`,

  // The audit log of administrative actions (append-only), and usage read by time across
  // organisations (the admin API's usage per day).
  `CREATE TABLE audit_log (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     at INTEGER NOT NULL,
     actor TEXT NOT NULL,
     action TEXT NOT NULL,
     subject TEXT,
     details TEXT NOT NULL,
     request_id TEXT
   ) STRICT;
   CREATE INDEX audit_log_by_time ON audit_log (at);
   CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
   BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
   CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
   BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
   CREATE INDEX usage_by_time ON usage (created_at);`,

  // The audit log keeps the client's own x-request-id apart from ours (request_id).
  `ALTER TABLE audit_log ADD COLUMN client_request_id TEXT;`,

  // The prompt tokens a model read from its cache (OpenAI's `cached_tokens`), NULL when it
  // reported none.
  `ALTER TABLE usage ADD COLUMN cached_prompt_tokens INTEGER;`,

  // A rotated key records when and by which key it was replaced: its overlap's end may come
  // sooner, never later (decisions §9).
  `ALTER TABLE api_keys ADD COLUMN rotated_at INTEGER;
   ALTER TABLE api_keys ADD COLUMN replaced_by TEXT;`,

  // Usage rows say which API they came through; the rows before it were all chat completions.
  `ALTER TABLE usage ADD COLUMN api TEXT NOT NULL DEFAULT 'chat.completions' CHECK (api IN ('chat.completions', 'responses'));`,

  // The Responses API's stored responses (decisions §10): the response as last written, and
  // its input and output items, found by id for `item_reference` (the latest response
  // holding an id wins). Deleting a response deletes its items; expired rows are purged.
  `CREATE TABLE responses (
     id TEXT PRIMARY KEY,
     owner TEXT NOT NULL,
     response TEXT NOT NULL,
     previous_response_id TEXT,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX responses_by_expiry ON responses (expires_at);
   CREATE TABLE response_items (
     response_id TEXT NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
     kind TEXT NOT NULL CHECK (kind IN ('input', 'output')),
     position INTEGER NOT NULL,
     id TEXT NOT NULL,
     owner TEXT NOT NULL,
     item TEXT NOT NULL,
     PRIMARY KEY (response_id, kind, position)
   ) STRICT;
   CREATE INDEX response_items_by_id ON response_items (owner, id);`,
];
