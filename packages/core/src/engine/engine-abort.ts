import type { ChatEngineContext } from './chat-engine.js';

/** The part of an engine's context that says whether, and why, its run was aborted. */
export type RunAbort = Pick<ChatEngineContext, 'signal' | 'aborted' | 'onAbort' | 'offAbort'>;

/**
 * Listens for the run's abort through `onAbort` where the context has it: the core then makes no
 * `AbortController` for a request that ends normally. A context made by hand has only `signal`.
 * For engines: the reason is `context.signal.reason` once aborted.
 *
 * @example
 * listenForAbort(context, stopMyRequest);
 * // ... and once the answer is complete:
 * stopListeningForAbort(context, stopMyRequest);
 */
export function listenForAbort(context: RunAbort, listener: () => void): void {
  if (context.onAbort !== undefined) context.onAbort(listener);
  else context.signal.addEventListener('abort', listener, { once: true });
}

export function stopListeningForAbort(context: RunAbort, listener: () => void): void {
  if (context.offAbort !== undefined) context.offAbort(listener);
  else context.signal.removeEventListener('abort', listener);
}

/**
 * Whether the run is aborted, read without making its signal where the context allows.
 *
 * @example
 * if (isRunAborted(context)) throw context.signal.reason;
 */
export function isRunAborted(context: RunAbort): boolean {
  return context.aborted ?? context.signal.aborted;
}
