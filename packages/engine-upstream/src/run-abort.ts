import type { ChatEngineContext } from '@quantum-chat/core';

/**
 * Listens for the run's abort through `onAbort` where the context has it: the core then makes no
 * `AbortController` for a request that ends normally. A context made by hand has only `signal`.
 */
export function listenForAbort(context: ChatEngineContext, listener: () => void): void {
  if (context.onAbort !== undefined) context.onAbort(listener);
  else context.signal.addEventListener('abort', listener, { once: true });
}

export function stopListeningForAbort(context: ChatEngineContext, listener: () => void): void {
  if (context.offAbort !== undefined) context.offAbort(listener);
  else context.signal.removeEventListener('abort', listener);
}

/** Whether the run is aborted, read without making its signal where the context allows. */
export function isRunAborted(context: ChatEngineContext): boolean {
  return context.aborted ?? context.signal.aborted;
}
