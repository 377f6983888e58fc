import type { KeyStore, UsageRecord } from './key-store.js';

export interface UsageLedgerOptions {
  store: KeyStore;
  /** How often rows are written; 500 ms by default. A crash loses at most this much of a running request's count. */
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
  now?: () => number;
  /** Reporting only: a write that failed (it is retried). */
  onWriteError?: (error: unknown, pending: number) => void;
  /** Reporting only: rows dropped because the buffer was full (`total` since start). */
  onDropped?: (dropped: number, total: number) => void;
  /** Reporting only: the writes work again after failing. */
  onRecovered?: (written: number) => void;
}

/** A request being written down while it runs. */
export interface RunningUsage {
  /** How to read what it has produced so far; without one, the admission's prompt tokens and 0. */
  track(read: () => { promptTokens: number; completionTokens: number }): void;
  /** Its final row: written at the next flush, retried until the store takes it. */
  settle(final: Pick<UsageRecord, 'promptTokens' | 'completionTokens' | 'cachedPromptTokens' | 'status' | 'interrupted'>): void;
}

/** The usage ledger of one instance: rows written in batches, running ones included. */
export interface UsageLedger {
  begin(record: Omit<UsageRecord, 'settled' | 'abandoned' | 'status' | 'interrupted' | 'completionTokens'>): RunningUsage;
  /** Writes what is pending now (also called by the timer). */
  flush(): Promise<void>;
  /** Settled rows not written yet. */
  readonly pending: number;
  /** Rows dropped because the buffer was full, since start. */
  readonly dropped: number;
  /** Stops the timer and writes what is pending, giving up after `timeoutMs` (2000 by default). */
  close(timeoutMs?: number): Promise<void>;
}

interface Running {
  record: UsageRecord;
  read: (() => { promptTokens: number; completionTokens: number }) | undefined;
}

/**
 * Batches usage rows (decisions §6): every `flushIntervalMs`, one write holds every settled
 * row not yet written and a progress row for each running request. Writes are upserts by
 * usage id, so a write retried after a failure never counts twice. While the store is down,
 * settled rows wait in a bounded buffer; an instance killed mid-stream leaves its last
 * progress row, which another instance settles after `abandonedAfterMs`.
 *
 * @example
 * const ledger = createUsageLedger({ store });
 * const running = ledger.begin({ usageId, requestId, keyId, organisation, model, promptTokens, timestamp: Date.now() });
 * running.settle({ promptTokens, completionTokens, status: 200, interrupted: false });
 */
export function createUsageLedger(options: UsageLedgerOptions): UsageLedger {
  const { store } = options;
  const now = options.now ?? Date.now;
  const flushIntervalMs = options.flushIntervalMs ?? 500;
  const maxBuffered = options.maxBufferedRecords ?? 100_000;
  const abandonedAfterMs = options.abandonedAfterMs ?? 30_000;
  const maxBatch = options.maxBatch ?? 1000;
  // Insertion-ordered: the oldest settled rows go first, and are dropped first when full.
  const settled = new Map<string, UsageRecord>();
  const running = new Map<string, Running>();
  let dropped = 0;
  let failing = false;
  let flushing: Promise<void> | undefined;
  let lastSweep = now();

  function enqueue(record: UsageRecord): void {
    settled.set(record.usageId, record);
    if (settled.size <= maxBuffered) return;
    const oldest = settled.keys().next().value!;
    settled.delete(oldest);
    dropped++;
    options.onDropped?.(1, dropped);
  }

  function progressRows(): UsageRecord[] {
    const rows: UsageRecord[] = [];
    for (const entry of running.values()) {
      const progress = entry.read?.();
      rows.push(progress === undefined ? entry.record : { ...entry.record, promptTokens: progress.promptTokens, completionTokens: progress.completionTokens });
    }
    return rows;
  }

  async function writePending(): Promise<void> {
    // Progress rows first: a request that settles meanwhile is in `settled` and wins (written later in the same batch).
    const rows = [...progressRows(), ...settled.values()];
    for (let start = 0; start < rows.length; start += maxBatch) {
      const batch = rows.slice(start, start + maxBatch);
      await store.writeUsage(batch);
      for (const row of batch) if (row.settled && settled.get(row.usageId) === row) settled.delete(row.usageId);
    }
    if (failing) {
      failing = false;
      options.onRecovered?.(rows.length);
    }
    if (now() - lastSweep >= abandonedAfterMs / 3) {
      lastSweep = now();
      await store.settleAbandonedUsage(now() - abandonedAfterMs);
    }
  }

  function flush(): Promise<void> {
    flushing ??= writePending()
      .catch((error: unknown) => {
        failing = true;
        options.onWriteError?.(error, settled.size);
      })
      .finally(() => {
        flushing = undefined;
      });
    return flushing;
  }

  const timer = setInterval(() => {
    if (settled.size > 0 || running.size > 0 || now() - lastSweep >= abandonedAfterMs / 3) void flush();
  }, flushIntervalMs);
  timer.unref();

  return {
    begin(base) {
      const entry: Running = {
        record: { ...base, completionTokens: 0, status: 200, interrupted: true, settled: false },
        read: undefined,
      };
      running.set(base.usageId, entry);
      return {
        track(read) {
          entry.read = read;
        },
        settle(final) {
          if (!running.delete(base.usageId)) return;
          enqueue({ ...entry.record, ...final, settled: true });
        },
      };
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
      let timeout: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        (async () => {
          await flushing;
          await flush();
        })(),
        new Promise((resolve) => (timeout = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timeout);
    },
  };
}
