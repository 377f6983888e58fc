import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { renewedMap } from './renewed-collections.js';
import type { MigrationResult } from './service-store/index.js';
import { createStatementNumbers } from './statement-numbers.js';

/**
 * One statement for the worker: `run` for writes, `get`/`all` for rows; `runEach` runs it once
 * per entry of `rows` (looked up once per batch rather than once per row), answering the total
 * of changes. A text crosses to the worker once, then by number (`createStatementNumbers`). @internal
 */
export type SqlOp =
  | { sql: string; params?: readonly unknown[]; mode: 'run' | 'all' }
  | {
      sql: string;
      params?: readonly unknown[];
      mode: 'get';
      /** Runs only when the op before it in the batch answered null (a fallback read), else answers null unread. */
      ifPreviousNull?: true;
    }
  | { sql: string; rows: readonly (readonly unknown[])[]; mode: 'runEach' };

interface ExecuteOptions {
  /** All statements in one IMMEDIATE transaction. */
  transaction?: boolean;
  /** How long the worker keeps retrying while another process holds the write lock; 5000 ms by default. */
  lockWaitMs?: number;
}

/** A SQLite connection in a worker thread. @internal */
export interface SqliteExecutor {
  migrate(): Promise<MigrationResult>;
  execute(ops: readonly SqlOp[], options?: ExecuteOptions): Promise<unknown[]>;
  /** Messages posted to the worker and received from it since start (for tests and benchmarks). */
  readonly messages: { readonly sent: number; readonly received: number };
  /** The worker's background flushes of the WAL: how many it made, and whether one is to come (for tests). */
  walSyncs(): Promise<{ done: number; pending: boolean }>;
  close(): Promise<void>;
}

/** An error the worker reported, with SQLite's code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, …). */
class SqliteError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined) {
    super(message);
    this.name = 'SqliteError';
    this.code = code;
  }
}

type Reply = { id: number; results: unknown[] } | { id: number; error: { message: string; code?: string } };

/** A call on its way to the worker. */
type Call = Record<string, unknown> & { id: number };

/** How long after a commit the worker flushes the WAL in the background (see `WalSync` in the worker). */
const walSyncDelayMs = 50;

/**
 * Starts the worker that owns the database file. The worker is referenced only while calls
 * are pending, so an idle store never keeps a process alive, and a pending call always does.
 *
 * @internal
 */
export function startSqliteExecutor(path: string, migrations: readonly string[]): SqliteExecutor {
  const require = createRequire(import.meta.url);
  const worker = new Worker(new URL('./sqlite-worker.mjs', import.meta.url), {
    // Busy waits inside SQLite are short; longer waits are retries that let reads through.
    workerData: { path, betterSqlite3Path: require.resolve('better-sqlite3'), migrations, busyTimeoutMs: 20, walSyncDelayMs },
  });
  worker.unref();
  let pending = new Map<number, { resolve(results: unknown[]): void; reject(error: Error): void }>();
  let nextId = 0;
  let failure: Error | undefined;
  /** close() holds the process open until the worker exits; a last reply must not let go of it. */
  let closing = false;

  const failAll = (error: Error) => {
    failure = error;
    for (const call of pending.values()) call.reject(error);
    pending.clear();
    outbox = [];
    inFlight = 0;
  };
  const answer = (reply: Reply) => {
    const call = pending.get(reply.id);
    if (call === undefined) return;
    pending.delete(reply.id);
    if (pending.size === 0 && !closing) worker.unref();
    if ('error' in reply) call.reject(new SqliteError(reply.error.message, reply.error.code));
    else call.resolve(reply.results);
  };
  const messages = { sent: 0, received: 0 };
  // The worker answers the calls of one message in one message, always (an empty one when every
  // call waits on a lock: those answer on their own later).
  worker.on('message', (replies: Reply | Reply[]) => {
    messages.received++;
    if (!Array.isArray(replies)) return answer(replies);
    inFlight--;
    for (const reply of replies) answer(reply);
    // Every store call comes and goes here (see `renewedMap`): a short-lived copy.
    pending = renewedMap(pending);
    if (outbox.length > 0) scheduleFlush();
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`The SQLite worker stopped (exit code ${code}).`)));

  /**
   * Group commit of messages (`flushOutbox`): calls made in the same turn of the event loop,
   * or while two messages are in the worker, leave together in the next one. A message wakes
   * the worker thread, and on a busy core each wake-up costs a context switch and a structured
   * clone both ways, so the day's reservations and the usage rows of concurrent requests share
   * them. Two, not one: the worker runs one message at a time, and a second one queued behind
   * it means the worker never waits for this thread (perhaps descheduled on a busy core) to
   * notice that the first was answered.
   */
  let outbox: Call[] = [];
  let flushScheduled = false;
  /** Messages posted and not answered yet: at most `maxInFlight`. */
  let inFlight = 0;
  const maxInFlight = 2;
  function scheduleFlush(): void {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(flushOutbox);
  }
  function flushOutbox(force = false): void {
    flushScheduled = false;
    if (outbox.length === 0 || (inFlight >= maxInFlight && !force)) return;
    const calls = outbox;
    outbox = [];
    inFlight++;
    messages.sent++;
    worker.postMessage(calls);
  }

  function send(message: Record<string, unknown>): Promise<unknown[]> {
    if (failure !== undefined) return Promise.reject(failure);
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      if (pending.size === 1) worker.ref();
      message.id = id;
      outbox.push(message as Call);
      if (inFlight < maxInFlight) scheduleFlush();
    });
  }

  let migrated: Promise<MigrationResult> | undefined;
  /** Set once the migrations ran: later batches go without waiting on a settled promise. */
  let migratedOnce = false;
  /** Runs the migrations now; every batch first waits for one such run. */
  const runMigrations = () => {
    migrated = send({ type: 'migrate', deadline: Date.now() + 30_000 }).then((results) => {
      migratedOnce = true;
      return results[0] as MigrationResult;
    });
    migrated.catch(() => (migrated = undefined));
    return migrated;
  };
  const migrate = () => migrated ?? runMigrations();
  const numbered = createStatementNumbers();

  return {
    messages,
    walSyncs: async () => (await send({ type: 'walSyncs' }))[0] as { done: number; pending: boolean },
    migrate: runMigrations,
    execute(ops, options = {}) {
      const message = { ops: ops.map(numbered), transaction: options.transaction ?? false, deadline: Date.now() + (options.lockWaitMs ?? 5000) };
      if (migratedOnce) return send(message);
      return migrate().then(() => send(message));
    },
    async close() {
      if (failure !== undefined) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      closing = true;
      worker.ref();
      // Calls still waiting go first: the worker answers them before it closes.
      flushOutbox(true);
      worker.postMessage({ type: 'close' });
      await exited;
    },
  };
}
