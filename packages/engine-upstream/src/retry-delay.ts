/** How failed attempts are retried on other deployments: see `UpstreamEngineOptions.retry`. */
export interface RetryOptions {
  /** Attempts in all, the first included; at most one per deployment. 3 by default. */
  maxAttempts?: number;
  /** The wait before the second attempt; 50 ms by default, doubling after each, with jitter. */
  baseDelayMs?: number;
  /** The longest wait between attempts; 1000 ms by default. */
  maxDelayMs?: number;
}

/**
 * The wait before attempt `attempt` (2 for the first retry): exponential from `baseDelayMs`,
 * "equal jitter" (half fixed, half random) so that clients that failed together do not retry
 * together, capped at `maxDelayMs`. A `retry-after` concerns the deployment that sent it, which
 * its circuit breaker keeps out that long; the next attempt goes elsewhere and does not wait it out.
 *
 * @example
 * retryDelayMs(2, { baseDelayMs: 50 }, Math.random); // 25–50
 */
export function retryDelayMs(attempt: number, options: RetryOptions, random: () => number): number {
  const base = Math.max(0, options.baseDelayMs ?? 50);
  const cap = Math.max(0, options.maxDelayMs ?? 1_000);
  const exponential = Math.min(cap, base * 2 ** Math.max(0, attempt - 2));
  return exponential / 2 + (exponential / 2) * random();
}

/** Resolves after `milliseconds`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (milliseconds <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
