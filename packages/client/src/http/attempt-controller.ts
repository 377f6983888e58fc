/** The abort state of one HTTP attempt. @internal */
export interface AttemptController {
  /** Passed to `fetch`: aborts on the caller's signal, on the timeout, or on {@link abort}. */
  readonly signal: AbortSignal;
  /** Why the attempt was aborted, if it was. */
  readonly abortedBy: () => 'caller' | 'timeout' | undefined;
  /** Stops the timeout (a stream's headers arrived: the body may take as long as it takes). */
  clearTimeout(): void;
  /** Aborts the attempt as the caller (a `break` out of a stream, `stream.abort()`). */
  abort(): void;
  /** Removes the listener on the caller's signal and the timer. */
  dispose(): void;
}

/**
 * One `AbortController` per attempt, linked to the caller's signal and a timer. Written out
 * instead of `AbortSignal.any`/`AbortSignal.timeout` so that the cause of an abort is known
 * without inspecting reasons, and nothing is left listening on a long-lived caller signal.
 *
 * @internal
 */
export function createAttemptController(callerSignal: AbortSignal | undefined, timeoutMs: number): AttemptController {
  const controller = new AbortController();
  let cause: 'caller' | 'timeout' | undefined;
  const onCallerAbort = () => {
    cause ??= 'caller';
    controller.abort(callerSignal?.reason);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
    timer = setTimeout(() => {
      cause ??= 'timeout';
      controller.abort();
    }, timeoutMs);
  }
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  function clearTimer(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }
  return {
    signal: controller.signal,
    abortedBy: () => cause,
    clearTimeout: clearTimer,
    abort: () => {
      cause ??= 'caller';
      controller.abort();
    },
    dispose: () => {
      clearTimer();
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}
