import type { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** A count in a fixed window: points counted so far and when the window ends (ms since the epoch). */
export interface WindowCount {
  total: number;
  resetsAt: number;
}

/** Points just added, with the way to give some back to the same window. */
export interface WindowCharge extends WindowCount {
  /** Where the points were counted: Redis, or this process's memory. */
  backend: 'redis' | 'memory';
  /**
   * Gives points back to the window they were taken from. Does nothing once that window has
   * ended: the points were never counted in the next one. Never rejects.
   */
  refund(points: number): Promise<void>;
}

/**
 * One dimension of the limits (requests/min, tokens/min or tokens/day): an atomic counter per
 * key in fixed windows. Limits are compared by the caller, not here, because they differ per
 * organisation and change while the server runs; one counter per dimension keeps the count
 * when an operator changes a limit.
 *
 * @internal
 */
export interface WindowCounter {
  add(key: string, points: number): Promise<WindowCharge>;
  read(key: string): Promise<WindowCount>;
  /** Loads what the first real call would (Redis: the Lua script), so that it is not slow. */
  warmUp?(): Promise<void>;
}

/**
 * The points given to rate-limiter-flexible: never reached, so it only counts and never
 * rejects. The limit itself is compared by the caller.
 *
 * @internal
 */
export const unlimitedPoints = Number.MAX_SAFE_INTEGER;

/** @internal */
export function toWindowCount(result: RateLimiterRes, durationSeconds: number): WindowCount {
  const msBeforeNext = result.msBeforeNext >= 0 ? result.msBeforeNext : durationSeconds * 1000;
  return { total: result.consumedPoints, resetsAt: Date.now() + msBeforeNext };
}

/**
 * A charge of `count`'s window. Written out, not `{ ...count, backend, refund }`: on Node 20 a
 * literal that starts with a spread gets a hidden class per charge, and each request charges
 * each of its limits. @internal
 */
export function windowCharge(count: WindowCount, backend: WindowCharge['backend'], refund: WindowCharge['refund']): WindowCharge {
  return { total: count.total, resetsAt: count.resetsAt, backend, refund };
}

/** Runs `give` only while the charged window is still open. @internal */
export async function refundWithin(resetsAt: number, give: () => Promise<unknown>, onError?: (error: unknown) => void): Promise<void> {
  if (Date.now() >= resetsAt) return;
  try {
    await give();
  } catch (error) {
    onError?.(error);
  }
}

/**
 * A window counter in this process's memory (rate-limiter-flexible's `RateLimiterMemory`):
 * the Redis limiter's fail-open fallback (without Redis, `MemoryWindows` counts).
 *
 * @internal
 */
export function createMemoryWindowCounter(limiter: RateLimiterMemory): WindowCounter {
  return {
    async add(key, points) {
      const count = toWindowCount(await limiter.consume(key, points), limiter.duration);
      return windowCharge(count, 'memory', (given) => refundWithin(count.resetsAt, () => limiter.reward(key, given)));
    },
    async read(key) {
      const result = await limiter.get(key);
      return result === null ? { total: 0, resetsAt: Date.now() + limiter.duration * 1000 } : toWindowCount(result, limiter.duration);
    },
  };
}
