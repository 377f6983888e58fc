import type { ChatEngineEvent } from '@quantum-chat/core';
import type { SseEvent } from '@quantum-chat/core/sse';
import type { UpstreamAttempt } from './upstream-attempt.js';

/**
 * The events of one upstream read (or of a whole answer, or a stream's end), mapped and noted
 * as relayed, to go to our caller as one batch. A failure part-way keeps what came before it:
 * the caller yields `events`, then `rethrow()`s, as when each event went out on its own (the
 * client gets them before the error frame, and an attempt that answered is not retried).
 */
export class RelayedBatch {
  readonly #attempt: UpstreamAttempt;
  readonly events: ChatEngineEvent[] = [];
  #failure: { error: unknown } | undefined = undefined;
  /** The answer is complete, or cut at our count of `max_tokens`: nothing more is read. */
  stopped = false;

  constructor(attempt: UpstreamAttempt) {
    this.#attempt = attempt;
  }

  /** Maps a read's server-sent events, up to the answer's end or its cut. */
  read(batch: readonly SseEvent[]): this {
    const attempt = this.#attempt;
    try {
      for (const event of batch) {
        const mapped = attempt.read(event);
        if (mapped === undefined) {
          this.stopped = true;
          break;
        }
        for (const mappedEvent of mapped) this.events.push(attempt.relayed(mappedEvent));
        if (attempt.cut()) {
          this.stopped = true;
          break;
        }
      }
    } catch (error) {
      this.#failure = { error };
    }
    return this;
  }

  /** Adds events that need no mapping (a whole answer, read as it is iterated; a stream's last events). */
  add(events: Iterable<ChatEngineEvent>): this {
    try {
      for (const event of events) this.events.push(this.#attempt.relayed(event));
    } catch (error) {
      this.#failure = { error };
    }
    return this;
  }

  /** Throws the failure that ended the batch, if one did: once its events went out. */
  rethrow(): void {
    if (this.#failure !== undefined) throw this.#failure.error;
  }
}
