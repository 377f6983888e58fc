import { QuantumChatError } from '@quantum-chat/core';

/** A slot lent to one request; give it back with `release` whatever happens. */
interface Lease<T> {
  readonly item: T;
  release(): void;
}

export interface SequencePool<T> {
  /** A free item, else a place in the bounded queue, else `overloaded` (503 with `retry-after`). */
  acquire(signal: AbortSignal): Promise<Lease<T>>;
  /** Requests waiting for an item. */
  readonly waiting: number;
  readonly busy: number;
}

interface Waiter<T> {
  resolve(lease: Lease<T>): void;
  reject(error: unknown): void;
  signal: AbortSignal;
  onAbort(): void;
}

/**
 * The context sequences of a model as a pool: each request holds one sequence (llama.cpp
 * batches the sequences of a context together), at most `maxQueue` wait in arrival order.
 */
export function createSequencePool<T>(items: readonly T[], maxQueue: number, retryAfterSeconds = 1): SequencePool<T> {
  const free = [...items];
  const waiters: Waiter<T>[] = [];
  const lend = (item: T): Lease<T> => {
    let released = false;
    return {
      item,
      release() {
        if (released) return;
        released = true;
        const next = waiters.shift();
        if (next === undefined) {
          free.push(item);
          return;
        }
        next.signal.removeEventListener('abort', next.onAbort);
        next.resolve(lend(item));
      },
    };
  };
  return {
    get waiting() {
      return waiters.length;
    },
    get busy() {
      return items.length - free.length;
    },
    acquire(signal) {
      signal.throwIfAborted();
      const item = free.pop();
      if (item !== undefined) return Promise.resolve(lend(item));
      if (waiters.length >= maxQueue) {
        return Promise.reject(
          new QuantumChatError('overloaded', `The model is busy: ${items.length} requests are answering and ${waiters.length} are waiting; retry shortly.`, {
            headers: { 'retry-after': String(retryAfterSeconds) },
          }),
        );
      }
      return new Promise<Lease<T>>((resolve, reject) => {
        const waiter: Waiter<T> = {
          resolve,
          reject,
          signal,
          onAbort: () => {
            const index = waiters.indexOf(waiter);
            if (index !== -1) waiters.splice(index, 1);
            reject(signal.reason);
          },
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
        waiters.push(waiter);
      });
    },
  };
}
