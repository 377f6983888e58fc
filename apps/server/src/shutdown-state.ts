import { setMaxListeners } from 'node:events';

/**
 * The two stages of a graceful shutdown. Draining starts at once (new requests get 503
 * `shutting_down`, `/healthz` fails); the signal aborts when the grace period ends, and the
 * core then ends every open request with `shutting_down` (an error frame, no `[DONE]`).
 */
export interface ShutdownState {
  /** True from the first shutdown request on. */
  readonly draining: boolean;
  /** Aborted when open requests must end: give it to the handler as `shutdownSignal`. */
  readonly signal: AbortSignal;
  /** Enters the draining stage; false when it had already begun. */
  startDraining(): boolean;
  /** Ends the grace period: every open request ends with `shutting_down`. */
  endOpenRequests(): void;
}

/**
 * @example
 * const shutdown = createShutdownState();
 * createChatHandler({ engine, accessControl, shutdownSignal: shutdown.signal });
 */
export function createShutdownState(): ShutdownState {
  const controller = new AbortController();
  // Every open request whose engine reads its signal listens here: no listener cap (Node warns
  // of a leak past 10, which a busy server reaches in normal work).
  setMaxListeners(0, controller.signal);
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    signal: controller.signal,
    startDraining() {
      if (draining) return false;
      draining = true;
      return true;
    },
    endOpenRequests() {
      draining = true;
      if (!controller.signal.aborted) controller.abort(new Error('The server is shutting down.'));
    },
  };
}
