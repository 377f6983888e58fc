// What the PostgreSQL store's concerns share: the pool, the schema every query waits for, the clock.
import { createRequire } from 'node:module';
import type postgres from 'postgres';
import type { MigrationResult, StoreChange } from '../service-store/index.js';
import type { Row } from '../sql-store/rows.js';
import { postgresDialect, sharedStatements, type SharedStatements } from '../sql-store/statements.js';
import { postgresMigrations } from './migrations.js';

/** Any constant: serialises migrations run by several instances starting at once. */
const migrationLock = 7_303_171;

/** The driver's and the socket's words for a connection that went away. */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('CONNECTION_') || code === 'ECONNRESET' || code === 'EPIPE' || code === '57P01');
}

/** @internal */
export interface PostgresContext {
  sql: postgres.Sql;
  statements: SharedStatements;
  now: () => number;
  /** Waits for the schema (migrating it once, on first use). */
  migrate(): Promise<MigrationResult>;
  /** Runs the migrations now: what `migrate()` of the store does. */
  runMigrations(): Promise<MigrationResult>;
  query(text: string, params?: readonly unknown[]): Promise<Row[]>;
  one(text: string, params?: readonly unknown[]): Promise<Row | undefined>;
  /** This process's subscribers: they hear its own changes at once; the others through NOTIFY. */
  listeners: Set<(change: StoreChange) => void>;
}

/** @internal */
export function createPostgresContext(url: string, options: { now: () => number; maxConnections: number }): PostgresContext {
  const { now } = options;
  // Loaded on use: postgres is an optional peer, needed only by this store.
  const connect = createRequire(import.meta.url)('postgres') as typeof postgres;
  const sql = connect(url, {
    max: options.maxConnections,
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

  let migrated: Promise<MigrationResult> | undefined;
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
  return {
    sql,
    statements: sharedStatements(postgresDialect),
    now,
    migrate,
    runMigrations,
    query,
    one: async (text, params = []) => (await query(text, params))[0],
    listeners: new Set(),
  };
}

/** Tells this process's subscribers. @internal */
export function tell(context: PostgresContext, change: StoreChange): void {
  for (const listener of context.listeners) listener(change);
}

/** The context behind each PostgreSQL service store, so that a response store can share its pool. */
const contexts = new WeakMap<object, PostgresContext>();

/** @internal */
export function rememberPostgresContext<T extends object>(store: T, context: PostgresContext): T {
  contexts.set(store, context);
  return store;
}

/** The context of a store made by `createPostgresStore`, or undefined. @internal */
export const postgresContextOf = (store: object): PostgresContext | undefined => contexts.get(store);
