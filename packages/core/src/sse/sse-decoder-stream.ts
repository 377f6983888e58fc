import { createSseDecoder, type SseDecoder, type SseDecoderCallbacks, type SseDecoderOptions, type SseEvent } from './create-sse-decoder.js';

/** Options of {@link SseDecoderStream}: the decoder callbacks other than events, which the stream yields. */
export interface SseDecoderStreamOptions extends SseDecoderOptions {
  onComment?: SseDecoderCallbacks['onComment'];
  onRetry?: SseDecoderCallbacks['onRetry'];
}

/**
 * A `TransformStream` from SSE text or bytes to events: {@link createSseDecoder} behind a web
 * stream, as eventsource-parser's `EventSourceParserStream` wraps its parser. An incomplete event
 * at the end of the input is dropped, as the WHATWG rules require.
 *
 * @example
 * const events = response.body!.pipeThrough(new SseDecoderStream());
 * for await (const event of events) console.log(event.event, event.data);
 */
export class SseDecoderStream extends TransformStream<string | Uint8Array, SseEvent> {
  constructor(options: SseDecoderStreamOptions = {}) {
    const { onComment, onRetry, maxEventLength } = options;
    // start() runs inside super(), before any chunk arrives.
    let decoder!: SseDecoder;
    super({
      start(controller) {
        decoder = createSseDecoder({
          onEvent: (event) => controller.enqueue(event),
          ...(onComment === undefined ? {} : { onComment }),
          ...(onRetry === undefined ? {} : { onRetry }),
        }, maxEventLength === undefined ? {} : { maxEventLength });
      },
      transform(chunk) {
        decoder.feed(chunk);
      },
      flush() {
        decoder.end();
      },
    });
  }
}
