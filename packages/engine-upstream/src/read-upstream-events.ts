import { createSseDecoder, type SseEvent } from '@quantum-chat/core';

/** Called around each wait for upstream bytes, so timers run only while we wait on the upstream. */
export interface WaitHooks {
  beforeWait(): void;
  afterWait(): void;
}

/**
 * Yields the server-sent events of an upstream body as they are decoded. Timers are armed only
 * while no decoded event is pending, so a slow reader of ours never looks like a stalled
 * upstream. An incomplete trailing event at EOF is dropped (WHATWG), which the caller sees as a
 * stream that ended without finishing.
 */
export async function* readUpstreamEvents(body: ReadableStream<Uint8Array>, hooks: WaitHooks): AsyncGenerator<SseEvent> {
  const pending: SseEvent[] = [];
  const decoder = createSseDecoder({ onEvent: (event) => pending.push(event) });
  const reader = body.getReader();
  try {
    for (;;) {
      let next = pending.shift();
      while (next !== undefined) {
        yield next;
        next = pending.shift();
      }
      hooks.beforeWait();
      const result = await reader.read();
      hooks.afterWait();
      if (result.done) {
        decoder.end();
        return;
      }
      decoder.feed(result.value);
    }
  } finally {
    // Ending early (a `[DONE]`, an error, our consumer leaving) must let go of the body now.
    reader.cancel().catch(() => undefined);
  }
}
