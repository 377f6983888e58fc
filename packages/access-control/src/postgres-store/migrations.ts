/**
 * The PostgreSQL schema, one migration per entry, recorded in `quantum_chat_migrations`.
 * Append only: a shipped migration is never edited. Same tables and columns as the SQLite
 * store. Limit columns: NULL keeps the default, -1 lifts the limit.
 *
 * @internal
 */
export const postgresMigrations: readonly string[] = [
  `CREATE TABLE organisations (
     name text PRIMARY KEY,
     plan text NOT NULL CHECK (plan IN ('free', 'elite')),
     requests_per_minute bigint,
     tokens_per_minute bigint,
     tokens_per_day bigint,
     created_at bigint NOT NULL
   );
   CREATE TABLE api_keys (
     id text PRIMARY KEY,
     organisation text NOT NULL REFERENCES organisations (name),
     kind text NOT NULL CHECK (kind IN ('live', 'test')),
     hash text NOT NULL UNIQUE,
     prefix text NOT NULL,
     last4 text NOT NULL,
     require_signature boolean NOT NULL DEFAULT false,
     revoked_at bigint,
     created_at bigint NOT NULL,
     expires_at bigint,
     allowed_models text,
     requests_per_minute bigint,
     tokens_per_minute bigint,
     tokens_per_day bigint
   );
   CREATE INDEX api_keys_by_organisation ON api_keys (organisation);
   CREATE TABLE usage (
     id bigserial PRIMARY KEY,
     usage_id text NOT NULL UNIQUE,
     request_id text NOT NULL,
     key_id text NOT NULL,
     organisation text NOT NULL,
     model text NOT NULL,
     prompt_tokens bigint NOT NULL,
     completion_tokens bigint NOT NULL,
     status integer NOT NULL,
     interrupted boolean NOT NULL,
     settled boolean NOT NULL,
     abandoned boolean NOT NULL DEFAULT false,
     daily_bucket text,
     daily_day text,
     daily_charged bigint NOT NULL DEFAULT 0,
     created_at bigint NOT NULL,
     updated_at bigint NOT NULL
   );
   CREATE INDEX usage_by_organisation ON usage (organisation, created_at);
   CREATE INDEX usage_unsettled ON usage (updated_at) WHERE NOT settled;
   CREATE TABLE daily_tokens (
     bucket text NOT NULL,
     day text NOT NULL,
     tokens bigint NOT NULL,
     PRIMARY KEY (bucket, day)
   );
   -- What a usage row adds to its day: its reservation while it runs, its tokens once settled.
   CREATE FUNCTION quantum_chat_usage_settles_daily() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     delta bigint;
   BEGIN
     IF NEW.daily_bucket IS NULL THEN RETURN NULL; END IF;
     delta := (CASE WHEN NEW.settled THEN NEW.prompt_tokens + NEW.completion_tokens ELSE NEW.daily_charged END)
            - (CASE WHEN TG_OP = 'INSERT' THEN NEW.daily_charged
                    WHEN OLD.settled THEN OLD.prompt_tokens + OLD.completion_tokens
                    ELSE OLD.daily_charged END);
     IF delta <> 0 THEN
       INSERT INTO daily_tokens (bucket, day, tokens) VALUES (NEW.daily_bucket, NEW.daily_day, delta)
       ON CONFLICT (bucket, day) DO UPDATE SET tokens = daily_tokens.tokens + EXCLUDED.tokens;
     END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER usage_settles_daily AFTER INSERT OR UPDATE ON usage
     FOR EACH ROW EXECUTE FUNCTION quantum_chat_usage_settles_daily();
   -- Every instance listens: a revoked key or a changed organisation leaves every cache at once.
   CREATE FUNCTION quantum_chat_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_TABLE_NAME = 'api_keys' THEN
       PERFORM pg_notify('quantum_chat_changes', 'key:' || NEW.hash);
     ELSE
       PERFORM pg_notify('quantum_chat_changes', 'organisation:' || NEW.name);
     END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys FOR EACH ROW EXECUTE FUNCTION quantum_chat_notify_change();
   CREATE TRIGGER organisations_changed AFTER UPDATE ON organisations FOR EACH ROW EXECUTE FUNCTION quantum_chat_notify_change();`,

  // The audit log of administrative actions (append-only), and usage read by time across
  // organisations (the admin API's usage per day).
  `CREATE TABLE audit_log (
     id bigserial PRIMARY KEY,
     at bigint NOT NULL,
     actor text NOT NULL,
     action text NOT NULL,
     subject text,
     details text NOT NULL,
     request_id text
   );
   CREATE INDEX audit_log_by_time ON audit_log (at);
   CREATE FUNCTION quantum_chat_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'the audit log is append-only';
   END $$;
   CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
     FOR EACH ROW EXECUTE FUNCTION quantum_chat_audit_log_append_only();
   CREATE INDEX usage_by_time ON usage (created_at);`,

  // The audit log keeps the client's own x-request-id apart from ours (request_id).
  `ALTER TABLE audit_log ADD COLUMN client_request_id text;`,

  // The prompt tokens a model read from its cache (OpenAI's `cached_tokens`), NULL when it
  // reported none.
  `ALTER TABLE usage ADD COLUMN cached_prompt_tokens bigint;`,

  // A rotated key records when and by which key it was replaced: its overlap's end may come
  // sooner, never later (decisions §9).
  `ALTER TABLE api_keys ADD COLUMN rotated_at bigint;
   ALTER TABLE api_keys ADD COLUMN replaced_by text;`,

  // Usage rows say which API they came through; the rows before it were all chat completions.
  `ALTER TABLE usage ADD COLUMN api text NOT NULL DEFAULT 'chat.completions' CHECK (api IN ('chat.completions', 'responses'));`,

  // The Responses API's stored responses (decisions §10): the response as last written, and
  // its input and output items, found by id for `item_reference` (the latest response
  // holding an id wins). Deleting a response deletes its items; expired rows are purged.
  `CREATE TABLE responses (
     id text PRIMARY KEY,
     owner text NOT NULL,
     response text NOT NULL,
     previous_response_id text,
     created_at bigint NOT NULL,
     expires_at bigint NOT NULL
   );
   CREATE INDEX responses_by_expiry ON responses (expires_at);
   CREATE TABLE response_items (
     response_id text NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
     kind text NOT NULL CHECK (kind IN ('input', 'output')),
     position integer NOT NULL,
     id text NOT NULL,
     owner text NOT NULL,
     item text NOT NULL,
     PRIMARY KEY (response_id, kind, position)
   );
   CREATE INDEX response_items_by_id ON response_items (owner, id);`,

  // A statement's usage rows settle their days together: one add per day for the whole group,
  // where the row trigger ran once per row and wrote a new version of the day's row each time
  // (about a fifth of PostgreSQL's CPU per usage row in a group of 25). What a row adds to its
  // day is unchanged: its reservation while it runs, its tokens once settled.
  `DROP TRIGGER usage_settles_daily ON usage;
   DROP FUNCTION quantum_chat_usage_settles_daily();
   CREATE FUNCTION quantum_chat_usage_inserted_settle_days() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO daily_tokens (bucket, day, tokens)
     SELECT daily_bucket, daily_day, delta FROM (
       SELECT daily_bucket, daily_day,
              sum(CASE WHEN settled THEN prompt_tokens + completion_tokens - daily_charged ELSE 0 END) AS delta
       FROM inserted_usage WHERE daily_bucket IS NOT NULL GROUP BY daily_bucket, daily_day
     ) AS days
     WHERE delta <> 0 ORDER BY daily_bucket, daily_day
     ON CONFLICT (bucket, day) DO UPDATE SET tokens = daily_tokens.tokens + EXCLUDED.tokens;
     RETURN NULL;
   END $$;
   CREATE FUNCTION quantum_chat_usage_updated_settle_days() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO daily_tokens (bucket, day, tokens)
     SELECT daily_bucket, daily_day, delta FROM (
       SELECT after_update.daily_bucket, after_update.daily_day,
              sum((CASE WHEN after_update.settled THEN after_update.prompt_tokens + after_update.completion_tokens ELSE after_update.daily_charged END)
                - (CASE WHEN before_update.settled THEN before_update.prompt_tokens + before_update.completion_tokens ELSE before_update.daily_charged END)) AS delta
       FROM updated_usage_new AS after_update JOIN updated_usage_old AS before_update ON before_update.id = after_update.id
       WHERE after_update.daily_bucket IS NOT NULL GROUP BY after_update.daily_bucket, after_update.daily_day
     ) AS days
     WHERE delta <> 0 ORDER BY daily_bucket, daily_day
     ON CONFLICT (bucket, day) DO UPDATE SET tokens = daily_tokens.tokens + EXCLUDED.tokens;
     RETURN NULL;
   END $$;
   CREATE TRIGGER usage_inserted_settle_days AFTER INSERT ON usage REFERENCING NEW TABLE AS inserted_usage
     FOR EACH STATEMENT EXECUTE FUNCTION quantum_chat_usage_inserted_settle_days();
   CREATE TRIGGER usage_updated_settle_days AFTER UPDATE ON usage REFERENCING OLD TABLE AS updated_usage_old NEW TABLE AS updated_usage_new
     FOR EACH STATEMENT EXECUTE FUNCTION quantum_chat_usage_updated_settle_days();`,
];
