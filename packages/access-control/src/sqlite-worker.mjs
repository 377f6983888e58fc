// The SQLite store's worker thread: it owns the better-sqlite3 connection, so that no query,
// lock wait or fsync ever runs on the server's event loop. It knows no table: it runs the
// statements it is sent (one call = one batch, optionally one transaction; one message = the
// calls of one turn of the server's event loop) and answers each message's calls in one message.
// Plain JavaScript, so that the same file runs from the sources (tests) and from dist.
import { chmodSync, closeSync, existsSync, fsync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const { path, betterSqlite3Path, migrations, busyTimeoutMs, walSyncDelayMs } = workerData;
const Database = createRequire(import.meta.url)(betterSqlite3Path);

/**
 * The WAL, flushed to disk in the background while commits come. Why: with `synchronous =
 * NORMAL` a commit only writes the WAL, and SQLite fsyncs it before each automatic checkpoint
 * (every 1,000 pages); that fsync, of everything committed since the last one, held the commit
 * that crossed the threshold and every call queued behind it, 1–3 ms at one request at a time.
 * Flushed here at most `delayMs` after a commit, on libuv's thread pool (this thread goes on),
 * the checkpoint finds little left to write. SQLite's own fsyncs are unchanged: commits only
 * reach the disk sooner.
 */
class WalSync {
  #file;
  #delayMs;
  #fd = undefined;
  #timer = undefined;
  #syncing = false;
  #closed = false;
  /** Flushes done (for tests). */
  syncs = 0;

  /** Whether a flush is waiting or under way (for tests). */
  get pending() {
    return this.#timer !== undefined || this.#syncing;
  }

  constructor(file, delayMs) {
    this.#file = file;
    this.#delayMs = delayMs;
  }

  /** After a commit: one flush within `delayMs`, however many commits come meanwhile. */
  soon() {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => this.#sync(), this.#delayMs);
    this.#timer.unref();
  }

  #sync() {
    this.#timer = undefined;
    if (this.#syncing) return this.soon();
    try {
      this.#fd ??= openSync(this.#file, 'r');
    } catch {
      return; // No WAL file yet: the next commit makes one and asks again.
    }
    this.#syncing = true;
    fsync(this.#fd, (error) => {
      this.#syncing = false;
      if (error === null) this.syncs++;
      if (this.#closed) this.#release();
    });
  }

  close() {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#syncing) this.#release();
  }

  #release() {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

const walSync = path === ':memory:' ? undefined : new WalSync(`${path}-wal`, walSyncDelayMs);

/** Waits between attempts of a batch that met another process's lock (SQLITE_BUSY). */
const retryDelaysMs = [5, 10, 25, 50, 100];

let db;
/** Prepared statements by number (see statement-numbers.ts) or, past the numbered ones, by text. */
const statements = new Map();
/** Statement texts by number, learnt as the message carrying each first arrives. */
const texts = new Map();
/** Runs a batch's statements in one IMMEDIATE transaction; made once: `db.transaction` builds five wrappers per call. */
let inTransaction;
/** Runs the writes of one message in one transaction (`runTogether`); made once, like `inTransaction`. */
let runsTogether;

function prepare(op) {
  const key = op.statement ?? op.sql;
  let statement = statements.get(key);
  if (statement === undefined) {
    statement = db.prepare(op.sql ?? texts.get(op.statement));
    statements.set(key, statement);
  }
  return statement;
}

/** Learns the texts a message numbers before anything runs: a call retried later may carry a text that later messages use by number. */
function learnTexts(calls) {
  for (const call of calls) {
    if (call.ops === undefined) continue;
    for (const op of call.ops) if (op.statement !== undefined && op.sql !== undefined) texts.set(op.statement, op.sql);
  }
}

function runOne(op) {
  const statement = prepare(op);
  if (op.mode === 'runEach') {
    let changes = 0;
    for (const params of op.rows) changes += statement.run(...params).changes;
    return { changes };
  }
  const params = op.params ?? [];
  if (op.mode === 'all') return statement.all(...params);
  if (op.mode === 'get') return statement.get(...params) ?? null;
  const result = statement.run(...params);
  return { changes: result.changes };
}

/** A batch's ops in order; one marked `ifPreviousNull` is skipped (null) unless the op before it answered null. */
function runOps(ops) {
  const results = [];
  for (const op of ops) results.push(op.ifPreviousNull === true && results.at(-1) !== null ? null : runOne(op));
  return results;
}

function runBatch(message) {
  if (!message.transaction) return runOps(message.ops);
  inTransaction ??= db.transaction(runOps);
  return inTransaction.immediate(message.ops);
}

/** Ops that change the database (any other op only reads). */
const isWrite = (op) => op.mode === 'run' || op.mode === 'runEach';

/** Whether a call's batch may have committed a change. */
const writes = (call) => call.transaction || call.ops.some(isWrite);

const errorReply = (error) => ({ message: String(error?.message ?? error), code: error?.code });

const isBusy = (error) => error?.code === 'SQLITE_BUSY' || error?.code === 'SQLITE_BUSY_SNAPSHOT' || error?.code === 'SQLITE_LOCKED';

const post = (reply) => parentPort.postMessage(reply);

/** Runs one call's batch and answers it, or retries it later (answering on its own then). */
function attempt(message, tries, answer) {
  try {
    answer({ id: message.id, results: runBatch(message) });
    if (writes(message)) walSync?.soon();
  } catch (error) {
    // Another process holds the write lock: try again later, answering other batches (reads
    // go on in WAL mode) meanwhile, until the batch's deadline.
    if (isBusy(error) && Date.now() < message.deadline) {
      setTimeout(() => attempt(message, tries + 1, post), retryDelaysMs[Math.min(tries, retryDelaysMs.length - 1)]);
      return;
    }
    answer({ id: message.id, error: errorReply(error) });
  }
}

/**
 * Runs the writes of one message (its transactional calls and its single writes) in one
 * IMMEDIATE transaction, in the order they were sent, and returns their answers once it has
 * committed. Why: each commit writes every page it changed to the WAL, and the calls of one
 * turn (the day's reservations of several organisations, the usage rows settling with them)
 * change the same few pages, so one commit for them all writes each page once. No savepoint
 * per call: in SQLite one costs about as much as a commit of its own. So if any call fails (or
 * another process holds the write lock), the whole transaction rolls back, nothing was
 * written, and the caller runs each call on its own.
 */
function runTogether(calls) {
  runsTogether ??= db.transaction((group) => group.map((call) => ({ id: call.id, results: runOps(call.ops) })));
  const answers = runsTogether.immediate(calls);
  walSync?.soon();
  return answers;
}

function migrate() {
  const from = Number(db.pragma('user_version', { simple: true }));
  if (from >= migrations.length) return { from, to: from };
  // IMMEDIATE: two processes opening a new file at once must not both migrate it.
  db.transaction(() => {
    const current = Number(db.pragma('user_version', { simple: true }));
    for (let index = current; index < migrations.length; index++) db.exec(migrations[index]);
    db.pragma(`user_version = ${migrations.length}`);
  }).immediate();
  return { from, to: migrations.length };
}

/** The database and its WAL files are readable by their owner only (0600). */
function restrictFiles() {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

function open() {
  if (path !== ':memory:') {
    closeSync(openSync(path, 'a', 0o600));
    restrictFiles();
  }
  db = new Database(path, { timeout: busyTimeoutMs });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  if (path !== ':memory:') restrictFiles();
}

function migrateAndAnswer(message, tries, answer) {
  try {
    db ??= (open(), db);
    answer({ id: message.id, results: [migrate()] });
    walSync?.soon();
  } catch (error) {
    if (isBusy(error) && Date.now() < message.deadline) return void setTimeout(() => migrateAndAnswer(message, tries + 1, post), retryDelaysMs[Math.min(tries, retryDelaysMs.length - 1)]);
    answer({ id: message.id, error: errorReply(error) });
  }
}

function handle(call, answer) {
  if (call.type === 'walSyncs') answer({ id: call.id, results: [{ done: walSync?.syncs ?? 0, pending: walSync?.pending ?? false }] });
  else if (call.type === 'migrate') migrateAndAnswer(call, 0, answer);
  else attempt(call, 0, answer);
}

// A message is the calls of one turn of the server's event loop: they are answered in one message.
parentPort.on('message', (message) => {
  if (message.type === 'close') {
    walSync?.close();
    db?.close();
    parentPort.close();
    return;
  }
  if (!Array.isArray(message)) {
    learnTexts([message]);
    return handle(message, post);
  }
  learnTexts(message);
  const replies = [];
  const collect = (reply) => replies.push(reply);
  // Every write joins, transactional or not, so that writes keep the order they were sent in (a
  // day's refund before a reservation that needs it); reads are answered after the commit.
  const joins = message.map((call) => db !== undefined && call.type === undefined && (call.transaction || call.ops.every(isWrite)));
  const together = message.filter((_, index) => joins[index]);
  let answers;
  if (together.length >= 2) {
    try {
      answers = runTogether(together);
    } catch {
      // Rolled back whole: each call runs on its own below, with its own answer, error or
      // retries on another process's lock.
    }
  }
  message.forEach((call, index) => {
    if (answers === undefined || !joins[index]) handle(call, collect);
  });
  if (answers !== undefined) replies.push(...answers);
  // Always answered, even empty: the server sends its next message once this one is answered.
  post(replies);
});
