/** Waits between retries; injectable so tests neither wait nor depend on the clock. */
export type Sleep = (milliseconds: number, signal?: AbortSignal) => Promise<void>;

/**
 * The default {@link Sleep}: a timer that ends early, without rejecting, when `signal` aborts
 * (the caller checks the signal afterwards and throws its own abort error).
 *
 * @internal
 */
export const defaultSleep: Sleep = (milliseconds, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, milliseconds);
    signal?.addEventListener('abort', done, { once: true });
  });
