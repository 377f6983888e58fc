import type { QuantumChatError } from '@quantum-chat/core';

/** One resettable timer that aborts a controller with a timeout error. */
export interface Deadline {
  /** (Re)starts the timer; a non-positive or infinite `milliseconds` means no limit. */
  arm(milliseconds: number, createError: () => QuantumChatError): void;
  clear(): void;
}

/**
 * A timer that aborts `controller` with the error it was armed with, so every pending read or
 * connect fails at once and the error says which limit was hit.
 */
export function createDeadline(controller: AbortController): Deadline {
  let timer: ReturnType<typeof setTimeout> | undefined;
  function clear(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }
  return {
    arm(milliseconds, createError) {
      clear();
      if (!(milliseconds > 0 && milliseconds < Number.POSITIVE_INFINITY)) return;
      timer = setTimeout(() => controller.abort(createError()), milliseconds);
    },
    clear,
  };
}
