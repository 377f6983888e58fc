import { QuantumChatError } from '@quantum-chat/core';
import type { ServiceStore } from './service-store/index.js';
import { createRedisCircuit } from './redis-circuit.js';
import { deadlineExceeded, withDeadline } from './with-deadline.js';

export interface DailyQuotaOptions {
  store: ServiceStore;
  /** The most a request waits on the store for its reservation; 250 ms by default. */
  timeoutMs?: number;
  /** When the store cannot count: false (default) counts in this process; true answers 503 `store_unavailable`. */
  failClosed?: boolean;
  /**
   * Every admitted request commits its settle synchronously later (the durable usage ledger),
   * which makes its reservation durable too: the store need not flush each reservation before
   * answering (see `DailyReservationInput.flushedBySettle`). False by default.
   */
  flushedBySettle?: boolean;
  now?: () => number;
  /** Reporting only: the store stopped or started counting the days. */
  onStateChange?: (available: boolean, reason: unknown) => void;
  onError?: (error: unknown) => void;
}

/** A reservation on the day's tokens. */
export interface DailyDecision {
  admitted: boolean;
  /** The UTC day counted, `YYYY-MM-DD`. */
  day: string;
  /** The day's count after this reservation (admitted) or as it stands (refused). */
  total: number;
  /** When the day ends (next UTC midnight), ms since the epoch. */
  resetsAt: number;
  /** Tokens added to the store's count now (0 when counted in this process while the store was out of reach). */
  charged: number;
}

export interface DailyQuota {
  reserve(bucket: string, tokens: number, limit: number): Promise<DailyDecision>;
  dispose(): void;
}

/** The UTC day of a time, `YYYY-MM-DD`. */
export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

function nextUtcMidnight(time: number): number {
  const date = new Date(time);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
}

/**
 * The daily token quota, counted per UTC day in the store (decisions §6), so that it survives
 * restarts and is one count across instances: each reservation is an atomic conditional add.
 * A store that does not answer within `timeoutMs` opens a circuit: until a probe gets through,
 * each instance counts on its own from the last total it saw (or answers 503 when failing
 * closed), and the usage rows of those requests charge the day once they are written.
 *
 * @example
 * const daily = createDailyQuota({ store });
 * const decision = await daily.reserve('acme:live', 4_216, 1_000_000);
 */
export function createDailyQuota(options: DailyQuotaOptions): DailyQuota {
  const { store } = options;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 250;
  const flushedBySettle = options.flushedBySettle ?? false;
  /** The last total the store gave per bucket and day, and what this process counted since the store stopped answering. */
  const lastKnown = new Map<string, number>();
  const countedAlone = new Map<string, number>();
  const circuit = createRedisCircuit({
    // A no-op reservation: on SQLite it needs the write lock, which is what reservations wait for.
    ping: () => store.reserveDailyTokens({ bucket: 'quantum-chat:probe', day: utcDay(now()), tokens: 0, limit: -1 }),
    timeoutMs: 1000,
    onChange: (open, reason) => {
      if (!open) countedAlone.clear();
      options.onStateChange?.(!open, reason);
    },
  });

  function alone(bucket: string, tokens: number, limit: number, cause: unknown): DailyDecision {
    if (options.failClosed) {
      throw new QuantumChatError('store_unavailable', 'The daily quota cannot be checked right now; retry the request shortly.', {
        cause,
        headers: { 'retry-after': '1', 'retry-after-ms': '1000' },
      });
    }
    const time = now();
    const day = utcDay(time);
    const id = `${bucket}\u0000${day}`;
    const total = (lastKnown.get(id) ?? 0) + (countedAlone.get(id) ?? 0);
    const admitted = total + tokens <= limit;
    if (admitted) countedAlone.set(id, (countedAlone.get(id) ?? 0) + tokens);
    return { admitted, day, total: admitted ? total + tokens : total, resetsAt: nextUtcMidnight(time), charged: 0 };
  }

  /** One store call for a group of reservations (or a single one). */
  async function reserveInStore(bucket: string, tokens: number, limit: number): Promise<DailyDecision> {
    if (circuit.open) return alone(bucket, tokens, limit, circuit.reason);
    const time = now();
    const day = utcDay(time);
    const pending = store.reserveDailyTokens({ bucket, day, tokens, limit, ...(flushedBySettle ? { flushedBySettle } : {}) });
    let result: Awaited<typeof pending> | typeof deadlineExceeded;
    try {
      result = await withDeadline(pending, timeoutMs);
    } catch (error) {
      circuit.trip(error);
      return alone(bucket, tokens, limit, error);
    }
    if (result === deadlineExceeded) {
      const error = new Error(`The store did not count the day's tokens within ${timeoutMs} ms.`);
      circuit.trip(error);
      // Counted late after all: take it back, since this request is counted in memory instead.
      pending
        .then(
          (late) => (late.admitted ? store.addDailyTokens({ bucket, day, tokens: -tokens }) : undefined),
          () => undefined,
        )
        .catch((undoError: unknown) => options.onError?.(undoError));
      return alone(bucket, tokens, limit, error);
    }
    lastKnown.set(`${bucket}\u0000${day}`, result.total);
    if (lastKnown.size > 10_000) lastKnown.delete(lastKnown.keys().next().value!);
    return { admitted: result.admitted, day, total: result.total, resetsAt: nextUtcMidnight(time), charged: result.admitted ? tokens : 0 };
  }

  interface Waiting {
    tokens: number;
    resolve(decision: DailyDecision): void;
    reject(error: unknown): void;
  }
  /**
   * Reservations of one bucket and limit wait here while that bucket's previous group is in the
   * store; they then go as one group.
   */
  const queues = new Map<string, { waiting: Waiting[]; busy: boolean }>();

  /**
   * Group commit: under load, many requests of one organisation reserve at once, and each
   * conditional add takes the same row lock and a commit in the store. One add for the sum of
   * a group admits them all; a group that does not fit is retried one by one, so the outcome
   * is that of reserving one after the other. One group per bucket is in the store at a time.
   */
  async function reserveGroup(bucket: string, limit: number, waiting: Waiting[]): Promise<void> {
    const sum = waiting.reduce((total, entry) => total + entry.tokens, 0);
    const settle = (entry: Waiting, work: Promise<DailyDecision>) => work.then(entry.resolve, entry.reject);
    if (waiting.length === 1) return settle(waiting[0]!, reserveInStore(bucket, waiting[0]!.tokens, limit));
    let group: DailyDecision;
    try {
      group = await reserveInStore(bucket, sum, limit);
    } catch (error) {
      for (const entry of waiting) entry.reject(error);
      return;
    }
    if (!group.admitted) {
      for (const entry of waiting) await settle(entry, reserveInStore(bucket, entry.tokens, limit));
      return;
    }
    let total = group.total - sum;
    for (const entry of waiting) {
      total += entry.tokens;
      entry.resolve({ ...group, total, charged: group.charged === 0 ? 0 : entry.tokens });
    }
  }

  function drain(id: string, bucket: string, limit: number): void {
    const queue = queues.get(id)!;
    if (queue.waiting.length === 0) {
      queues.delete(id);
      return;
    }
    const waiting = queue.waiting;
    queue.waiting = [];
    queue.busy = true;
    void reserveGroup(bucket, limit, waiting).finally(() => {
      queue.busy = false;
      drain(id, bucket, limit);
    });
  }

  return {
    reserve(bucket, tokens, limit) {
      return new Promise<DailyDecision>((resolve, reject) => {
        const id = `${bucket}\u0000${limit}`;
        let queue = queues.get(id);
        if (queue === undefined) {
          queue = { waiting: [], busy: true };
          queues.set(id, queue);
          const started = queue;
          // The rest of this turn's reservations join the first group.
          setImmediate(() => {
            started.busy = false;
            drain(id, bucket, limit);
          });
        }
        queue.waiting.push({ tokens, resolve, reject });
      });
    },
    dispose() {
      circuit.dispose();
    },
  };
}
