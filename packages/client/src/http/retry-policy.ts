/** The first backoff, before jitter; it doubles with each retry (openai-node's figures). */
const initialRetryDelayMs = 500;
/** The longest computed backoff. */
const maxRetryDelayMs = 8_000;
/** A server's `retry-after` above this is not honoured: the computed backoff is used instead. */
const maxHonouredRetryAfterMs = 60_000;

/**
 * Whether a failed response should be retried. `x-should-retry` from the server wins (our
 * server sends `false` with `insufficient_quota`, where waiting does not help); otherwise
 * 408, 409, 429 and every 5xx are retried.
 *
 * @internal
 */
export function shouldRetryResponse(status: number, headers: Record<string, string>): boolean {
  const hint = headers['x-should-retry'];
  if (hint === 'true') return true;
  if (hint === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * How long to wait before retry number `retriesSoFar + 1`: the server's `retry-after-ms`, or
 * `retry-after` (seconds, possibly fractional, or an HTTP date), when present and under a
 * minute; else exponential backoff (0.5 s, 1 s, 2 s, … up to 8 s) minus up to 25 % jitter,
 * so that many clients rejected together do not come back together.
 *
 * @example
 * retryDelayMs(0, { 'retry-after-ms': '250' }); // 250
 * @internal
 */
export function retryDelayMs(retriesSoFar: number, headers: Record<string, string> = {}, now: number = Date.now(), random: () => number = Math.random): number {
  const fromServer = serverRetryAfterMs(headers, now);
  if (fromServer !== undefined && fromServer >= 0 && fromServer < maxHonouredRetryAfterMs) return fromServer;
  const base = Math.min(initialRetryDelayMs * 2 ** retriesSoFar, maxRetryDelayMs);
  return Math.round(base * (1 - random() * 0.25));
}

function serverRetryAfterMs(headers: Record<string, string>, now: number): number | undefined {
  const milliseconds = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (Number.isFinite(milliseconds)) return milliseconds;
  const retryAfter = headers['retry-after'];
  if (retryAfter === undefined || retryAfter.trim() === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : date - now;
}
