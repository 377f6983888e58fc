// @quantum-chat/core/sse: the Server-Sent Events codec alone (no zod, no handler): the
// incremental decoder, its TransformStream wrapper, and the encoder.

export { createSseDecoder, defaultMaxSseEventLength, SseEventTooLongError } from './sse/create-sse-decoder.js';
export type { SseDecoder, SseDecoderCallbacks, SseDecoderOptions, SseEvent } from './sse/create-sse-decoder.js';
export { SseDecoderStream } from './sse/sse-decoder-stream.js';
export type { SseDecoderStreamOptions } from './sse/sse-decoder-stream.js';
export { encodeSseEvent, encodeSseComment } from './sse/encode-sse-event.js';
export type { SseEventInit } from './sse/encode-sse-event.js';
