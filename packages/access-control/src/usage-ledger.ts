import { QuantumChatError } from '@quantum-chat/core';
import type { ServiceStore, UsageRecord } from './service-store/index.js';
import { renewedMap, renewedSet } from './renewed-collections.js';
import { nothingToWait } from './settled-promise.js';

export interface UsageLedgerOptions {
  store: ServiceStore;
  /**
   * true (default): `settle` resolves only once the row is committed, so that an answer is
   * acknowledged only after its usage is durable; rows settling together share one write
   * (group commit). false: settled rows wait for the next flush, and a crash loses up to
   * `flushIntervalMs` of them (the buffered ledger of earlier versions, kept for comparison).
   */
  durable?: boolean;
  /** Durable only: how long a settled row may wait for the store before `settle` rejects with 503 `store_unavailable`; 3000 ms by default. */
  commitTimeoutMs?: number;
  /** How often running requests' progress rows are written (and, buffered, settled rows); 500 ms by default. */
  flushIntervalMs?: number;
  /** The most settled rows held while the store is down; older ones are dropped past it (and reported). 100,000 by default. */
  maxBufferedRecords?: number;
  /**
   * Rows still running but not written for this long belong to a dead instance: they are
   * settled from their last count. 30 s by default; keep it well above `flushIntervalMs`.
   */
  abandonedAfterMs?: number;
  /** The most rows in one write; 1,000 by default. */
  maxBatch?: number;
  /**
   * The most writes in the store at once (rows settling meanwhile wait and go together); 1 by
   * default. Why one: with two, a write started as soon as the first few rows settled, and the
   * rest of the wave went in a second one (groups of 3 and 48 at 50 connections on PostgreSQL);
   * with one, they wait for the write in the store and share the next.
   */
  maxWritesInFlight?: number;
  now?: () => number;
  /** Reporting only: a write that failed (it is retried). */
  onWriteError?: (error: unknown, pending: number) => void;
  /** Reporting only: rows dropped because the buffer was full (`total` since start). */
  onDropped?: (dropped: number, total: number) => void;
  /** Reporting only: the writes work again after failing. */
  onRecovered?: (written: number) => void;
}

type FinalUsage = Pick<UsageRecord, 'promptTokens' | 'completionTokens' | 'cachedPromptTokens' | 'status' | 'interrupted' | 'api'>;

/** A request being written down while it runs. */
export interface RunningUsage {
  /** How to read what it has produced so far; without one, the admission's prompt tokens and 0. */
  track(read: () => { promptTokens: number; completionTokens: number }): void;
  /**
   * Its final row. Durable ledger: resolves once the row is committed; rejects with 503
   * `store_unavailable` when the store has not taken it within `commitTimeoutMs` (the row is
   * still retried, marked interrupted unless its write was already under way). Buffered:
   * resolves at once, the row is written at the next flush.
   */
  settle(final: FinalUsage): Promise<void>;
}

/** The usage ledger of one instance: settled rows committed before their answer, running ones written periodically. */
export interface UsageLedger {
  begin(record: Omit<UsageRecord, 'settled' | 'abandoned' | 'status' | 'interrupted' | 'completionTokens'>): RunningUsage;
  /** Whether `settle` waits for the row's commit (see `UsageLedgerOptions.durable`). */
  readonly durable: boolean;
  /** Writes what is pending now, progress rows included (also called by the timer). */
  flush(): Promise<void>;
  /** Settled rows not written yet. */
  readonly pending: number;
  /** Rows dropped because the buffer was full, since start. */
  readonly dropped: number;
  /** Stops the timer and writes what is pending, giving up after `timeoutMs` (2000 by default). */
  close(timeoutMs?: number): Promise<void>;
}

/** A request being written down: its row as begun, and how to read its progress. */
interface Running {
  record: UsageRecord;
  read: (() => { promptTokens: number; completionTokens: number }) | undefined;
}

/** A durable `settle` waiting for its row's commit. */
interface Waiter {
  deadline: number;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Rows sorted by the day they charge, then by usage id (stable: a progress row stays before its
 * settled row): concurrent writes then take their row locks in one order, so they never deadlock.
 */
function inLockOrder(first: UsageRecord, second: UsageRecord): number {
  const a = first.daily?.bucket ?? '';
  const b = second.daily?.bucket ?? '';
  if (a !== b) return a < b ? -1 : 1;
  return first.usageId < second.usageId ? -1 : first.usageId > second.usageId ? 1 : 0;
}

/**
 * A running request's first row, every field named: one shape for all rows (a spread of the
 * caller's object would copy whatever it carries and give rows shapes of their own).
 */
function runningRow(base: Omit<UsageRecord, 'settled' | 'abandoned' | 'status' | 'interrupted' | 'completionTokens'>): UsageRecord {
  const record: UsageRecord = {
    usageId: base.usageId,
    requestId: base.requestId,
    keyId: base.keyId,
    organisation: base.organisation,
    model: base.model,
    promptTokens: base.promptTokens,
    completionTokens: 0,
    status: 200,
    api: base.api ?? 'chat.completions',
    interrupted: true,
    settled: false,
    timestamp: base.timestamp,
    daily: base.daily,
  };
  if (base.cachedPromptTokens !== undefined) record.cachedPromptTokens = base.cachedPromptTokens;
  return record;
}

/** A request's settled row: its running row with the outcome's counts (only the ledger's fields of the outcome). */
function settledRow(record: UsageRecord, final: FinalUsage): UsageRecord {
  const row: UsageRecord = {
    usageId: record.usageId,
    requestId: record.requestId,
    keyId: record.keyId,
    organisation: record.organisation,
    model: record.model,
    promptTokens: final.promptTokens,
    completionTokens: final.completionTokens,
    status: final.status,
    api: final.api ?? record.api,
    interrupted: final.interrupted,
    settled: true,
    timestamp: record.timestamp,
    daily: record.daily,
  };
  const cached = final.cachedPromptTokens ?? record.cachedPromptTokens;
  if (cached !== undefined) row.cachedPromptTokens = cached;
  return row;
}

/**
 * Runs `callback` in the check phase of the next turn of the event loop, not this one's. Why: a
 * durable write then gathers the rows settling over two turns, and (queued ahead of the next
 * turn's other store calls) it travels in the same message to the SQLite worker as the day's
 * reservations made in that turn, sharing their commit. Under load this cut the messages by
 * about 40 % and made groups about a third larger; when idle it costs a turn, microseconds.
 */
function afterNextTurn(callback: () => void): void {
  setImmediate(() => setImmediate(callback));
}

function notRecordedError(cause?: unknown): QuantumChatError {
  return new QuantumChatError('store_unavailable', 'The usage of this request could not be recorded in time, so its answer is withheld; retry the request shortly.', {
    ...(cause !== undefined ? { cause } : {}),
    headers: { 'retry-after': '1', 'retry-after-ms': '1000' },
  });
}

/**
 * The usage ledger (decisions §6). A settled row is committed before its request's answer is
 * acknowledged: rows of requests settling within the same turn of the event loop, or while the
 * previous write is in the store, go as one write (group commit: one transaction, one message
 * to the SQLite worker, one PostgreSQL round trip). Running requests get a progress row every
 * `flushIntervalMs`; an instance killed mid-request leaves its last progress row, which
 * another instance settles after `abandonedAfterMs`. Writes are upserts by usage id, so a
 * write retried after a failure never counts twice.
 *
 * @example
 * const ledger = createUsageLedger({ store });
 * const running = ledger.begin({ usageId, requestId, keyId, organisation, model, promptTokens, timestamp: Date.now() });
 * await running.settle({ promptTokens, completionTokens, status: 200, interrupted: false }); // committed
 */
export function createUsageLedger(options: UsageLedgerOptions): UsageLedger {
  const { store } = options;
  const now = options.now ?? Date.now;
  const durable = options.durable ?? true;
  const commitTimeoutMs = options.commitTimeoutMs ?? 3000;
  const flushIntervalMs = options.flushIntervalMs ?? 500;
  const maxBuffered = options.maxBufferedRecords ?? 100_000;
  const abandonedAfterMs = options.abandonedAfterMs ?? 30_000;
  const maxBatch = options.maxBatch ?? 1000;
  const maxWritesInFlight = options.maxWritesInFlight ?? 1;
  // Insertion-ordered: the oldest settled rows go first, and are dropped first when full.
  let settled = new Map<string, UsageRecord>();
  // Insertion-ordered too, so the first one has the earliest deadline.
  let waiters = new Map<string, Waiter>();
  // Keyed by the entry itself: no string hashing per request.
  let running = new Set<Running>();
  /** Settled rows in a write now in the store: a late change to them would not be written. */
  let claimed = new Set<string>();
  const writes = new Set<Promise<void>>();
  let dropped = 0;
  let failing = false;
  let failures = 0;
  let ticking: Promise<void> | undefined;
  /** Rows settled while `maxWritesInFlight` writes were in the store: they go as soon as one ends. */
  let groupWaiting = false;
  let commitScheduled = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  let lastSweep = now();

  function release(usageId: string, error?: unknown): void {
    const waiter = waiters.get(usageId);
    if (waiter === undefined) return;
    waiters.delete(usageId);
    if (error === undefined) waiter.resolve();
    else waiter.reject(error);
  }

  function enqueue(record: UsageRecord): void {
    settled.set(record.usageId, record);
    if (settled.size <= maxBuffered) return;
    const oldest = settled.keys().next().value!;
    settled.delete(oldest);
    release(oldest, notRecordedError());
    dropped++;
    options.onDropped?.(1, dropped);
  }

  function progressRows(): UsageRecord[] {
    const rows: UsageRecord[] = [];
    for (const entry of running) {
      const progress = entry.read?.();
      rows.push(progress === undefined ? entry.record : { ...entry.record, promptTokens: progress.promptTokens, completionTokens: progress.completionTokens });
    }
    // Every request comes and goes through it (see `renewedMap`); copied at each tick, as it is read.
    running = renewedSet(running);
    return rows;
  }

  const sweepDue = () => now() - lastSweep >= abandonedAfterMs / 3;

  async function writeRows(rows: UsageRecord[], withProgress: boolean): Promise<void> {
    for (let start = 0; start < rows.length; start += maxBatch) {
      const batch = rows.slice(start, start + maxBatch);
      await store.writeUsage(batch);
      for (const row of batch) {
        if (!row.settled || settled.get(row.usageId) !== row) continue;
        settled.delete(row.usageId);
        release(row.usageId);
      }
    }
    if (withProgress && sweepDue()) {
      lastSweep = now();
      await store.settleAbandonedUsage(now() - abandonedAfterMs);
    }
  }

  /**
   * One write of every settled row no other write holds (and, from the timer, of the running
   * requests' progress). Up to `maxWritesInFlight` run at once. Never rejects: a failed write's
   * rows stay.
   */
  function startWrite(withProgress: boolean): Promise<void> {
    // Progress rows first: a request that settles meanwhile is in `settled` and wins (written later in the same batch).
    const rows = withProgress ? progressRows() : [];
    for (const row of settled.values()) if (!claimed.has(row.usageId)) rows.push(row);
    if (rows.length === 0 && !(withProgress && sweepDue())) return Promise.resolve();
    const mine: string[] = [];
    for (const row of rows) {
      if (!row.settled) continue;
      claimed.add(row.usageId);
      mine.push(row.usageId);
    }
    rows.sort(inLockOrder);
    const write = writeRows(rows, withProgress)
      .then(
        () => {
          failures = 0;
          if (failing) {
            failing = false;
            options.onRecovered?.(rows.length);
          }
        },
        (error: unknown) => {
          failing = true;
          failures++;
          options.onWriteError?.(error, settled.size);
          scheduleRetry();
        },
      )
      .finally(() => {
        for (const usageId of mine) claimed.delete(usageId);
        // Short-lived copies: these churn with every group (see `renewedMap`).
        settled = renewedMap(settled);
        waiters = renewedMap(waiters);
        claimed = renewedSet(claimed);
        writes.delete(write);
        if (groupWaiting && retryTimer === undefined) {
          groupWaiting = false;
          void startWrite(false);
        }
      });
    writes.add(write);
    return write;
  }

  /** Durable: a failed write is retried soon (backing off up to the flush interval), not at the next tick. */
  function scheduleRetry(): void {
    if (!durable || retryTimer !== undefined || settled.size === 0) return;
    retryTimer = setTimeout(
      () => {
        retryTimer = undefined;
        void startWrite(false);
      },
      Math.min(flushIntervalMs, 10 * 2 ** Math.min(failures, 6)),
    );
    retryTimer.unref();
  }

  /** The rows settling in this turn of the event loop and the next go together (or with the next write, if `maxWritesInFlight` are in the store). */
  function scheduleCommit(): void {
    // While the store fails, the retry timer writes them: no write per request against a dead store.
    if (commitScheduled || retryTimer !== undefined) return;
    commitScheduled = true;
    afterNextTurn(() => {
      commitScheduled = false;
      if (writes.size < maxWritesInFlight) void startWrite(false);
      else groupWaiting = true;
    });
  }

  function flush(): Promise<void> {
    return Promise.all(writes).then(() => startWrite(true));
  }

  /** Rejects the settles that waited longer than `commitTimeoutMs`; one timer, for the oldest. */
  function armDeadline(): void {
    if (deadlineTimer !== undefined || waiters.size === 0) return;
    const first = waiters.values().next().value!;
    deadlineTimer = setTimeout(expire, Math.max(1, first.deadline - now()));
    deadlineTimer.unref();
  }

  function expire(): void {
    deadlineTimer = undefined;
    const time = now();
    for (const [usageId, waiter] of waiters) {
      if (waiter.deadline > time) break;
      // Produced but not acknowledged: billed like an answer cut short, when the store is back.
      const record = settled.get(usageId);
      if (record !== undefined && !claimed.has(usageId)) settled.set(usageId, { ...record, interrupted: true });
      release(usageId, notRecordedError());
    }
    armDeadline();
  }

  /**
   * A running request's handle. A class, not a literal of closures: one hidden class and no
   * closure per request.
   */
  class RunningRow implements Running, RunningUsage {
    readonly record: UsageRecord;
    read: (() => { promptTokens: number; completionTokens: number }) | undefined = undefined;
    constructor(record: UsageRecord) {
      this.record = record;
    }
    track(read: () => { promptTokens: number; completionTokens: number }): void {
      this.read = read;
    }
    settle(final: FinalUsage): Promise<void> {
      if (!running.delete(this)) return nothingToWait;
      const usageId = this.record.usageId;
      enqueue(settledRow(this.record, final));
      if (!durable) return nothingToWait;
      const committed = new Promise<void>((resolve, reject) => {
        waiters.set(usageId, { deadline: now() + commitTimeoutMs, resolve, reject });
      });
      armDeadline();
      scheduleCommit();
      return committed;
    }
  }

  const timer = setInterval(() => {
    if (ticking === undefined && (settled.size > 0 || running.size > 0 || sweepDue())) {
      ticking = startWrite(true).finally(() => {
        ticking = undefined;
      });
    }
  }, flushIntervalMs);
  timer.unref();

  return {
    durable,
    begin(base) {
      const entry = new RunningRow(runningRow(base));
      running.add(entry);
      return entry;
    },
    flush,
    get pending() {
      return settled.size;
    },
    get dropped() {
      return dropped;
    },
    async close(timeoutMs = 2000) {
      clearInterval(timer);
      clearTimeout(retryTimer);
      retryTimer = undefined;
      let timeout: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        flush(),
        new Promise((resolve) => (timeout = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timeout);
      clearTimeout(deadlineTimer);
      deadlineTimer = undefined;
      for (const usageId of [...waiters.keys()]) release(usageId, notRecordedError());
    },
  };
}
