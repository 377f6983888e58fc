import { createSseDecoder, SseEventTooLongError, type SseDecoder, type SseEvent } from '@quantum-chat/core/sse';
import { QuantumChatError } from '@quantum-chat/core';
import { bodyTooLarge } from './read-capped-body.js';
import type { UpstreamBodyReader } from './upstream-transport.js';
import { createUtf8Reads, type Utf8Reads } from './utf8-reads.js';

/** How much of the stream is read: see `UpstreamLimits`. */
export interface StreamLimits {
  maxResponseBytes: number;
  maxEventLength: number;
}

/** Marks the phases of reading, so timers run only while we wait on the upstream. */
export interface WaitHooks {
  /** Called when we start waiting for the next event (not again for reads that bring none). */
  waitStarted(): void;
  /** Called when a wait ended with at least one event, before it is yielded. */
  eventsArrived(): void;
  /**
   * Asked when the caller stops early: true once the answer is complete (`[DONE]`), so the
   * rest of the body is read in the background and the connection goes back to the pool.
   */
  drainOnExit(): boolean;
}

/** How long a body may take to end after `[DONE]` before its connection is dropped. */
const drainGraceMs = 1000;

/**
 * How long the answer's end waits for its body to end after `[DONE]`. A body that ends in that
 * time gives its connection back before our caller sends its next request, which would otherwise
 * find the connection busy and open another; one that does not is read on in the background.
 */
const endWaitMs = 50;

/**
 * Reads the body to its end, or cancels it (closing the socket) after the grace or past
 * `maxBytes`; resolves once it ended, or after `endWaitMs` while the rest is read in the background.
 */
function drain(reader: UpstreamBodyReader, maxBytes: number): Promise<void> {
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), drainGraceMs);
  timer.unref();
  const ended = (async () => {
    try {
      let left = maxBytes;
      for (let result = await reader.read(); !result.done; result = await reader.read()) {
        left -= result.value?.byteLength ?? 0;
        if (left < 0) {
          await reader.cancel();
          break;
        }
      }
    } catch {
      // Cancelled or broken: either way the answer was already complete.
    } finally {
      clearTimeout(timer);
    }
  })();
  let stopWaiting: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    stopWaiting = setTimeout(resolve, endWaitMs);
  });
  return Promise.race([ended, waited]).finally(() => clearTimeout(stopWaiting));
}

/** Feeds the decoder; a line or event past the limit is the upstream's fault (502). */
function feed(decoder: SseDecoder, text: string): void {
  try {
    decoder.feed(text);
  } catch (error) {
    if (error instanceof SseEventTooLongError) throw new QuantumChatError('upstream_error', `The model server sent ${error.kind === 'line' ? 'a line' : 'an event'} longer than ${error.limit} characters.`);
    throw error;
  }
}

/**
 * Yields the server-sent events of an upstream body as they are decoded, in batches: all the
 * events one read brought (an upstream that writes fast packs hundreds into a read), so the
 * consumer pays one asynchronous step per read, not per event. A wait lasts until an event is
 * decoded: reads that bring only comments (`: keep-alive`) or part of an event do not end it,
 * and the time our consumer takes between batches is not part of it. An incomplete trailing
 * event at EOF is dropped (WHATWG), which the caller sees as a stream that ended without
 * finishing. More than `limits.maxResponseBytes` decoded bytes, or an event or line longer than
 * `limits.maxEventLength`, is an upstream fault (502); the body is then let go of.
 */
export async function* readUpstreamEvents(reader: UpstreamBodyReader, hooks: WaitHooks, limits: StreamLimits): AsyncGenerator<SseEvent[]> {
  let pending: SseEvent[] = [];
  // The bytes' decoder and the events' decoder, made when the first bytes arrive: a stream waiting
  // for its first token holds neither (their closures were about 1.5 KiB of every waiting stream).
  let decoding: { text: Utf8Reads; events: SseDecoder } | undefined;
  /** Decoded bytes still allowed (counted after decompression: see `UpstreamLimits.maxResponseBytes`). */
  let bytesLeft = limits.maxResponseBytes;
  let waiting = false;
  try {
    for (;;) {
      if (pending.length > 0) {
        if (waiting) hooks.eventsArrived();
        waiting = false;
        const batch = pending;
        pending = [];
        yield batch;
      }
      if (!waiting) hooks.waitStarted();
      waiting = true;
      const result = await reader.read();
      if (result.done) {
        if (decoding !== undefined) {
          feed(decoding.events, decoding.text.end());
          decoding.events.end();
        }
        return;
      }
      if (result.value !== undefined) {
        bytesLeft -= result.value.byteLength;
        if (bytesLeft < 0) throw bodyTooLarge(limits.maxResponseBytes);
        decoding ??= { text: createUtf8Reads(), events: createSseDecoder({ onEvent: (event) => pending.push(event) }, { maxEventLength: limits.maxEventLength }) };
        feed(decoding.events, decoding.text.decode(result.value));
      }
    }
  } finally {
    // An error or our consumer leaving must let go of the body now; undici then closes the socket.
    if (hooks.drainOnExit()) await drain(reader, Math.max(0, bytesLeft));
    else reader.cancel().catch(() => undefined);
  }
}
