/**
 * Callbacks in, an async iterator out: node-llama-cpp reports tokens through callbacks while
 * its promise runs, and an engine yields events. Pushed items wait (unbounded: a generation
 * produces at most `max_tokens` of them) until the reader takes them.
 */
export interface EventChannel<T> {
  push(item: T): void;
  /** No more items; `failure`, when given, is thrown to the reader after the queued items. */
  close(failure?: unknown): void;
  [Symbol.asyncIterator](): AsyncIterator<T>;
}

export function createEventChannel<T>(): EventChannel<T> {
  const queued: T[] = [];
  let closed = false;
  let failure: unknown;
  let failed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  return {
    push(item) {
      if (closed) return;
      queued.push(item);
      notify();
    },
    close(error?: unknown) {
      if (closed) return;
      closed = true;
      if (error !== undefined) {
        failed = true;
        failure = error;
      }
      notify();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queued.length > 0) {
          // Everything queued at once: one await per batch, not per token.
          const batch = queued.splice(0);
          for (const item of batch) yield item;
          continue;
        }
        if (closed) {
           
          if (failed) throw failure;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}
