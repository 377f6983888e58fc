import type { ChatEngineContext } from '@quantum-chat/core';

/** An engine context as the core makes one, for testing an engine: see `createWatchedEngineContext`. */
export interface WatchedEngineContext extends ChatEngineContext {
  /** How often `signal` was read (the core makes its `AbortController` at the first read). */
  readonly signalReads: number;
  /** Aborts the run as the core would: the signal, then every `onAbort` listener. */
  abort(reason: unknown): void;
}

/**
 * An engine context shaped like the core's (`onAbort`, `offAbort`, `aborted`), whose `signal`
 * reads are counted: for testing that an engine answers without reading its signal and stops
 * through `onAbort` when its run is aborted.
 *
 * @example
 * const context = createWatchedEngineContext({ stream: false });
 * for await (const event of engine.generate(request, context)) events.push(event);
 * expect(context.signalReads).toBe(0);
 */
export function createWatchedEngineContext(options: { requestId?: string; stream?: boolean } = {}): WatchedEngineContext {
  const controller = new AbortController();
  const listeners = new Set<() => void>();
  let signalReads = 0;
  return {
    requestId: options.requestId ?? 'req_watched',
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    get signalReads() {
      return signalReads;
    },
    get signal() {
      signalReads++;
      return controller.signal;
    },
    get aborted() {
      return controller.signal.aborted;
    },
    onAbort: (listener) => void listeners.add(listener),
    offAbort: (listener) => void listeners.delete(listener),
    abort(reason) {
      controller.abort(reason);
      for (const listener of [...listeners]) listener();
    },
  };
}
