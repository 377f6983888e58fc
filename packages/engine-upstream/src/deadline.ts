import type { QuantumChatError } from '@quantum-chat/core';
import type { UpstreamAbort } from './upstream-abort.js';

/** Says which limit ran out, from the limit in milliseconds. */
export type TimeoutError = (limitMs: number) => QuantumChatError;

/**
 * One resettable timer that aborts an upstream request with the error it was armed with, so every
 * pending read or connect fails at once and the error says which limit was hit. A class whose
 * timer carries its arguments: a waiting stream holds one object, no closures made per arming.
 */
export class Deadline {
  readonly #abort: UpstreamAbort;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;

  constructor(abort: UpstreamAbort) {
    this.#abort = abort;
  }

  /**
   * (Re)starts the timer; a non-positive or infinite `milliseconds` means no limit. The error
   * names `limitMs` (the whole limit, when what is left of it is armed).
   */
  arm(milliseconds: number, timeoutError: TimeoutError, limitMs = milliseconds): void {
    this.clear();
    if (!(milliseconds > 0 && milliseconds < Number.POSITIVE_INFINITY)) return;
    this.#timer = setTimeout(abortWithTimeout, milliseconds, this.#abort, timeoutError, limitMs);
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function abortWithTimeout(abort: UpstreamAbort, timeoutError: TimeoutError, limitMs: number): void {
  abort.abort(timeoutError(limitMs));
}
