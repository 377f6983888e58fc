/** A stream waiting for its first event, to be started with a keep-alive if still silent. */
export interface KeepAliveWaiter {
  keepAlive(): void;
}

/** The batch that waiters joining now still share (one at a time: a handler has one interval). */
let open: KeepAliveBatch | undefined;

/**
 * Streams that began waiting in the same millisecond with the same keep-alive interval, under
 * one timer. Node starts every timer at its event loop's millisecond and runs the timers of a
 * millisecond and duration in order, so the batch fires each waiter when its own timer would
 * have: but a waiting stream holds a slot of an array, not a `Timeout` with its arguments and
 * timestamps (about 200 bytes, as much as the rest of the stream's start).
 */
export class KeepAliveBatch {
  readonly #intervalMs: number;
  readonly #openedAt: number;
  #waiters: KeepAliveWaiter[];
  readonly #timer: ReturnType<typeof setTimeout>;

  private constructor(intervalMs: number, openedAt: number, first: KeepAliveWaiter) {
    this.#intervalMs = intervalMs;
    this.#openedAt = openedAt;
    this.#waiters = [first];
    this.#timer = setTimeout(fire, intervalMs, this);
  }

  /** Starts `waiter`'s wait: `keepAlive()` is called after `intervalMs`, unless it `leave`s first. */
  static join(waiter: KeepAliveWaiter, intervalMs: number): KeepAliveBatch {
    const now = Date.now();
    const batch = open;
    if (batch !== undefined && batch.#openedAt === now && batch.#intervalMs === intervalMs) {
      batch.#waiters.push(waiter);
      return batch;
    }
    open = new KeepAliveBatch(intervalMs, now, waiter);
    return open;
  }

  /** `waiter` needs no keep-alive any more (its first event came, or it failed). */
  leave(waiter: KeepAliveWaiter): void {
    const waiters = this.#waiters;
    const index = waiters.indexOf(waiter);
    if (index === -1) return;
    waiters.splice(index, 1);
    if (waiters.length > 0) return;
    clearTimeout(this.#timer);
    if (open === this) open = undefined;
  }

  /** The interval passed: every waiter still in the batch gets its keep-alive, in the order it joined. */
  fire(): void {
    if (open === this) open = undefined;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter.keepAlive();
  }
}

function fire(batch: KeepAliveBatch): void {
  batch.fire();
}
