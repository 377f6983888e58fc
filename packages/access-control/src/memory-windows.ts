import { nothingToWait } from './settled-promise.js';
import type { WindowCharge, WindowCount, WindowCounter } from './window-counter.js';

/** One key's fixed window: its count and when it ends (ms since the epoch). */
class Window {
  total = 0;
  readonly resetsAt: number;
  constructor(resetsAt: number) {
    this.resetsAt = resetsAt;
  }
}


/** Points just added to a window in memory; a refund goes back to that window only while it lasts. */
class MemoryCharge implements WindowCharge {
  readonly backend = 'memory' as const;
  readonly total: number;
  readonly resetsAt: number;
  readonly #window: Window;
  constructor(window: Window) {
    this.#window = window;
    this.total = window.total;
    this.resetsAt = window.resetsAt;
  }
  refund(points: number): Promise<void> {
    // A window that ended was replaced by a new object: giving points to the old one changes nothing.
    if (Date.now() < this.resetsAt) this.#window.total -= points;
    // Done when it returns: nothing to wait for.
    return nothingToWait;
  }
}

/**
 * Fixed windows per key in a Map, counted at once: the in-memory limiter's counters.
 * Hand-written rather than rate-limiter-flexible's `RateLimiterMemory` (still the Redis
 * limiter's insurance) because that one answers each call through a promise, a result object
 * and a timer per key, which on the request path cost more than the count itself; here a
 * reservation is a Map lookup and an addition, with no promise (`addNow`). Ended windows are
 * swept at most once per window length.
 *
 * @internal
 */
export class MemoryWindows implements WindowCounter {
  readonly #windows = new Map<string, Window>();
  readonly #durationMs: number;
  #nextSweep: number;

  constructor(durationSeconds: number) {
    this.#durationMs = durationSeconds * 1000;
    this.#nextSweep = Date.now() + this.#durationMs;
  }

  /** Adds points to the key's current window (a new one if it ended) and answers at once. */
  addNow(key: string, points: number): MemoryCharge {
    const time = Date.now();
    let window = this.#windows.get(key);
    if (window === undefined || window.resetsAt <= time) {
      if (time >= this.#nextSweep) this.#sweep(time);
      window = new Window(time + this.#durationMs);
      this.#windows.set(key, window);
    }
    window.total += points;
    return new MemoryCharge(window);
  }

  readNow(key: string): WindowCount {
    const time = Date.now();
    const window = this.#windows.get(key);
    return window === undefined || window.resetsAt <= time ? { total: 0, resetsAt: time + this.#durationMs } : { total: window.total, resetsAt: window.resetsAt };
  }

  add(key: string, points: number): Promise<WindowCharge> {
    return Promise.resolve(this.addNow(key, points));
  }

  read(key: string): Promise<WindowCount> {
    return Promise.resolve(this.readNow(key));
  }

  /** Keys counted at least once and whose window has not been swept yet (for tests). */
  get size(): number {
    return this.#windows.size;
  }

  #sweep(time: number): void {
    this.#nextSweep = time + this.#durationMs;
    for (const [key, window] of this.#windows) if (window.resetsAt <= time) this.#windows.delete(key);
  }
}
