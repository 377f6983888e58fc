import { QuantumChatError } from '@quantum-chat/core';
import type { ServiceStore } from './service-store/index.js';
import { DailyLeases } from './daily-leases.js';
import { createRedisCircuit } from './redis-circuit.js';
import { nextUtcMidnight, utcDay } from './utc-day.js';
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
  /**
   * Per-instance leases of the day's tokens (`DailyLeases`, decisions §6): a store reservation
   * far from the limit takes some tokens more, which the next reservations of the bucket use
   * without asking the store. False by default: every reservation is asked of the store.
   */
  leases?: boolean | { idleMs?: number };
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
  /** Stops the probes and gives the leases' unused tokens back to the store. */
  dispose(): Promise<void>;
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
  const leaseOptions = options.leases === true ? {} : options.leases || undefined;
  const leases =
    leaseOptions === undefined
      ? undefined
      : new DailyLeases({
          now,
          ...leaseOptions,
          giveBack: (bucket, day, tokens) => store.addDailyTokens({ bucket, day, tokens }).catch((error: unknown) => options.onError?.(error)),
        });
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

  /** A reservation answered from this process's lease of the day, or undefined when it holds too few. */
  function fromLease(bucket: string, limit: number, tokens: number): DailyDecision | undefined {
    const time = now();
    const day = utcDay(time);
    const total = leases?.take(bucket, day, limit, tokens);
    if (total === undefined) return undefined;
    return { admitted: true, day, total, resetsAt: nextUtcMidnight(time), charged: tokens };
  }

  /**
   * One store reservation for `tokens` (one request's or a group's), asking for a lease beyond
   * them while the day is far from its limit and counting what is left of the last one as part
   * of them. The decision is the reservation's own: `total` without the new lease, `charged` =
   * `tokens`.
   */
  async function reserveLeasing(bucket: string, tokens: number, limit: number, withLease: boolean): Promise<DailyDecision> {
    if (leases === undefined || circuit.open) return reserveInStore(bucket, tokens, limit);
    const day = utcDay(now());
    const handed = leases.handOver(bucket, day);
    const leftover = handed?.remaining ?? 0;
    const extra = withLease ? leases.extraFor(tokens, limit, lastKnown.get(`${bucket}\u0000${day}`) ?? 0) : 0;
    if (leftover === 0 && extra === 0) return reserveInStore(bucket, tokens, limit);
    // Less than nothing when the leftover is more than needed (a lease taken under another limit): the rest goes back.
    const asked = tokens + extra - leftover;
    let decision: DailyDecision;
    try {
      decision = await reserveInStore(bucket, asked, limit);
    } catch (error) {
      leases.restore(handed);
      throw error;
    }
    // Admitted by the store, or needing nothing of it beyond the leftover it already counts.
    const covered = decision.admitted && (decision.charged !== 0 || asked <= 0);
    if (!covered) {
      // Refused, or counted in this process while the store is out of reach: the leftover is still the lease's.
      leases.restore(handed);
      // Refused with a lease asked for: what is left may still hold these tokens alone.
      if (!decision.admitted && extra > 0) return reserveLeasing(bucket, tokens, limit, false);
      return decision.admitted ? decision : { ...decision, total: decision.total - leftover };
    }
    leases.renew(bucket, day, limit, extra, decision.total - extra);
    return { ...decision, total: decision.total - extra, charged: tokens };
  }

  /**
   * Group commit: under load, many requests of one organisation reserve at once, and each
   * conditional add takes the same row lock and a commit in the store. One add for the sum of
   * a group admits them all; a group that does not fit is retried one by one, so the outcome
   * is that of reserving one after the other. One group per bucket is in the store at a time.
   * Those a lease renewed meanwhile covers take from it first.
   */
  async function reserveGroup(bucket: string, limit: number, queued: Waiting[]): Promise<void> {
    const waiting = queued.filter((entry) => {
      const leased = fromLease(bucket, limit, entry.tokens);
      if (leased !== undefined) entry.resolve(leased);
      return leased === undefined;
    });
    if (waiting.length === 0) return;
    const settle = (entry: Waiting, work: Promise<DailyDecision>) => work.then(entry.resolve, entry.reject);
    if (waiting.length === 1) return settle(waiting[0]!, reserveOne(bucket, waiting[0]!.tokens, limit));
    const sum = waiting.reduce((total, entry) => total + entry.tokens, 0);
    let group: DailyDecision;
    try {
      group = await reserveLeasing(bucket, sum, limit, true);
    } catch (error) {
      for (const entry of waiting) entry.reject(error);
      return;
    }
    if (!group.admitted) {
      for (const entry of waiting) await settle(entry, reserveOne(bucket, entry.tokens, limit));
      return;
    }
    let total = group.total - sum;
    for (const entry of waiting) {
      total += entry.tokens;
      entry.resolve({ ...group, total, charged: group.charged === 0 ? 0 : entry.tokens });
    }
  }

  /** One reservation: from the lease when it covers it, else from the store with a lease when one fits, else exactly. */
  async function reserveOne(bucket: string, tokens: number, limit: number): Promise<DailyDecision> {
    return fromLease(bucket, limit, tokens) ?? reserveLeasing(bucket, tokens, limit, true);
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
      const leased = leases === undefined ? undefined : fromLease(bucket, limit, tokens);
      if (leased !== undefined) return Promise.resolve(leased);
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
    async dispose() {
      circuit.dispose();
      await leases?.close();
    },
  };
}
