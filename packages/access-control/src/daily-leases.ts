/** A share of a bucket's day that this process took from the store ahead of its requests. */
interface DailyLease {
  bucket: string;
  day: string;
  /** The limit it was taken under: a reservation under another one does not use it. */
  limit: number;
  /** Tokens counted in the store that no request of this process holds yet. */
  remaining: number;
  /** The day's count as this process's requests hold it: the store's count without `remaining`. */
  total: number;
  usedAt: number;
}

export interface DailyLeaseOptions {
  /** Gives unused tokens back to the store's count of a day (a negative add). */
  giveBack(bucket: string, day: string, tokens: number): Promise<unknown>;
  now: () => number;
  /** A lease unused this long goes back to the store; 1000 ms by default. */
  idleMs?: number;
}

/** A lease is at most this many times the tokens of the reservations that take it. */
const leaseRequests = 32;
/** And at most this share of what the day had left: near the limit, leases shrink to nothing. */
const leaseShareOfRest = 16;

/**
 * Per-instance leases of the day's tokens (decisions §6): a reservation that goes to the store
 * asks for some tokens more, and the next reservations of the same bucket take them here
 * without a store round trip. Every admitted token is counted in the store before it is
 * admitted, so no instance can pass the limit; what a lease costs is that its unused tokens
 * count as held (by one process, for at most `idleMs` after its last use) until they are given
 * back. A process's own lease never refuses it: a reservation it does not cover gives it up
 * to the store as part of its own ask.
 */
export class DailyLeases {
  readonly #leases = new Map<string, DailyLease>();
  readonly #options: DailyLeaseOptions;
  readonly #idleMs: number;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: DailyLeaseOptions) {
    this.#options = options;
    this.#idleMs = options.idleMs ?? 1000;
  }

  /** Takes `tokens` from the bucket's lease: the day's count after it, or undefined when the lease holds too few (or is of another day or limit). */
  take(bucket: string, day: string, limit: number, tokens: number): number | undefined {
    const lease = this.#leases.get(bucket);
    if (lease === undefined || lease.day !== day || lease.limit !== limit || lease.remaining < tokens) return undefined;
    lease.remaining -= tokens;
    lease.total += tokens;
    lease.usedAt = this.#options.now();
    return lease.total;
  }

  /**
   * Removes the bucket's lease of `day` and answers it, for a store reservation to count what
   * is left of it as its own (a lease of a past day goes back to the store). Removed at once,
   * so that two reservations in the store together never both count it.
   */
  handOver(bucket: string, day: string): Readonly<DailyLease> | undefined {
    const lease = this.#leases.get(bucket);
    if (lease === undefined) return undefined;
    this.#leases.delete(bucket);
    if (lease.day === day) return lease;
    void this.#giveBack(lease);
    return undefined;
  }

  /**
   * How many tokens a store reservation of `tokens` should ask for beyond them: a lease of up
   * to `leaseRequests` times as many, and at most a `leaseShareOfRest`th of what the day has
   * left after them (`known` is the last count the store gave). None when that is less than
   * `tokens`: near the limit every reservation goes to the store for exactly what it needs.
   */
  extraFor(tokens: number, limit: number, known: number): number {
    const extra = Math.min(tokens * leaseRequests, Math.floor((limit - known - tokens) / leaseShareOfRest));
    return extra >= tokens ? extra : 0;
  }

  /** The store counted a reservation with `extra` tokens more: the bucket's lease now. `total` is the store's count without them. */
  renew(bucket: string, day: string, limit: number, extra: number, total: number): void {
    this.#replace({ bucket, day, limit, remaining: extra, total, usedAt: this.#options.now() });
  }

  /** A reservation that was handed a lease did not take it (refused, or counted in this process): the lease is back as it was. */
  restore(handed: Readonly<DailyLease> | undefined): void {
    if (handed === undefined || handed.remaining === 0) return;
    const lease = this.#leases.get(handed.bucket);
    if (lease !== undefined && lease.day === handed.day && lease.limit === handed.limit) {
      lease.remaining += handed.remaining;
      return;
    }
    this.#replace({ ...handed });
  }

  #replace(lease: DailyLease): void {
    const existing = this.#leases.get(lease.bucket);
    if (existing !== undefined) void this.#giveBack(existing);
    if (lease.remaining === 0) {
      this.#leases.delete(lease.bucket);
      return;
    }
    this.#leases.set(lease.bucket, lease);
    this.#sweeper ??= setInterval(() => void this.#giveBackIdle(), this.#idleMs).unref();
  }

  /** Gives back the leases unused for `idleMs` (the sweeper's turn); one of a past day is never taken again, so it goes too. */
  #giveBackIdle(): Promise<unknown> {
    const now = this.#options.now();
    const returned: Promise<unknown>[] = [];
    for (const [bucket, lease] of this.#leases) {
      if (now - lease.usedAt < this.#idleMs) continue;
      this.#leases.delete(bucket);
      returned.push(this.#giveBack(lease));
    }
    return Promise.all(returned);
  }

  /** Gives every lease back and stops the sweeper (the process is closing). */
  close(): Promise<unknown> {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    const returned = [...this.#leases.values()].map((lease) => this.#giveBack(lease));
    this.#leases.clear();
    return Promise.all(returned);
  }

  #giveBack(lease: DailyLease): Promise<unknown> {
    return lease.remaining === 0 ? Promise.resolve() : this.#options.giveBack(lease.bucket, lease.day, -lease.remaining);
  }
}
