import { RateLimiterMemory } from 'rate-limiter-flexible';

/** Wrong admin tokens one client address may present per window before it is throttled, unless the config says otherwise. */
export const defaultAdminTokenFailuresPerMinute = 10;
/** The window of the limit, and the longest an address waits. */
export const adminFailureWindowSeconds = 60;

/** What counting a wrong token found. */
export interface AdminTokenFailure {
  /** Wrong tokens from this address in the current window, this one included. */
  failures: number;
  /** This failure reached the limit: the address is throttled from now on. */
  throttledNow: boolean;
}

/**
 * Counts wrong admin tokens per client address (in this process): an address that reaches
 * `limit` within `adminFailureWindowSeconds` gets 429 for every admin request, the right
 * token included, until its window ends — a guess must not learn that it was right.
 *
 * @example
 * const throttle = createAdminTokenThrottle(config.adminTokenFailuresPerMinute);
 * const waitMs = await throttle.throttledFor(request.ip);
 */
export function createAdminTokenThrottle(limit = defaultAdminTokenFailuresPerMinute) {
  const failed = new RateLimiterMemory({ points: limit, duration: adminFailureWindowSeconds });
  return {
    /** How long the address must still wait (ms), or undefined when it may try. */
    async throttledFor(address: string): Promise<number | undefined> {
      const state = await failed.get(address);
      return state !== null && state.consumedPoints >= limit ? Math.max(state.msBeforeNext, 1) : undefined;
    },
    async fail(address: string): Promise<AdminTokenFailure> {
      const state = await failed.penalty(address, 1);
      return { failures: state.consumedPoints, throttledNow: state.consumedPoints === limit };
    },
  };
}

export type AdminTokenThrottle = ReturnType<typeof createAdminTokenThrottle>;
