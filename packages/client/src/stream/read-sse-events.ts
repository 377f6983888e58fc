import { createSseDecoder, type SseEvent } from '@quantum-chat/core';

/**
 * The SSE events of a response body, decoded with the core's decoder as the bytes arrive
 * (cut anywhere, even inside a UTF-8 character). An incomplete trailing event is dropped, as
 * WHATWG requires. Returning early (a `break`, an error) cancels the body, which closes the
 * connection.
 *
 * @internal
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array> | null): AsyncGenerator<SseEvent, void, undefined> {
  if (body === null) return;
  const pending: SseEvent[] = [];
  const decoder = createSseDecoder({ onEvent: (event) => pending.push(event) });
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        decoder.end();
        break;
      }
      decoder.feed(value);
      yield* drain(pending);
    }
    yield* drain(pending);
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Yields and clears the decoded events; the consumer may stop after any of them. */
function* drain(pending: SseEvent[]): Generator<SseEvent, void, undefined> {
  for (let index = 0; index < pending.length; index++) yield pending[index]!;
  pending.length = 0;
}
