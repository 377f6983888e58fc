/** What `withDeadline` resolves with when the time ran out first. */
export const deadlineExceeded: unique symbol = Symbol('deadline-exceeded');

/**
 * Races a promise against a timer. The promise is not cancelled: a caller that gives up on a
 * Redis command must still handle its late result (see the Redis counter's `undoLate`).
 *
 * @internal
 */
export function withDeadline<T>(promise: Promise<T>, timeoutMs: number): Promise<T | typeof deadlineExceeded> {
  return new Promise((resolve, reject) => {
    // setImmediate: a reply already read off the socket while the event loop was busy settles
    // first (timers run before I/O in a loop turn), so a slow loop is not taken for a slow Redis.
    const timer = setTimeout(() => setImmediate(() => resolve(deadlineExceeded)), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
