import { createSseDecoder, type SseDecoderOptions } from '../../sse/create-sse-decoder.js';
import type { ResponseObject } from '../../schemas/responses/response-object.js';
import type { ResponseStreamEvent } from '../../schemas/responses/response-stream-event.js';
import { ResponseAccumulator, ResponseStreamFailedError, ResponseStreamProtocolError } from './accumulate-response.js';

/**
 * One event's JSON as a typed event: an object with a string `type` (the `event:` line's name
 * is not trusted over it). Anything else is a protocol error. Fields are not checked one by one:
 * the accumulator checks what it reads, and unknown types pass through for the caller to skip.
 */
export function parseResponseEvent(data: string): ResponseStreamEvent {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new ResponseStreamProtocolError(`A Responses stream event is not JSON: ${data.slice(0, 64)}`);
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new ResponseStreamProtocolError(`A Responses stream event has no 'type': ${data.slice(0, 64)}`);
  }
  return value as ResponseStreamEvent;
}

/** A reader of a Responses SSE stream, fed its text or bytes in pieces of any size. */
export interface ResponseEventReader {
  feed(chunk: string | Uint8Array): void;
  /** The stream ended: an incomplete trailing event is dropped, as SSE requires. */
  end(): void;
}

/** Calls `onEvent` with each typed event of a Responses stream (comments and keep-alives skipped). */
export function createResponseEventReader(onEvent: (event: ResponseStreamEvent) => void, options: SseDecoderOptions = {}): ResponseEventReader {
  const decoder = createSseDecoder({ onEvent: (event) => onEvent(parseResponseEvent(event.data)) }, options);
  return {
    feed: (chunk) => decoder.feed(chunk),
    end: () => decoder.end(),
  };
}

/**
 * Reads a whole Responses stream into its final `Response`. An `error` event, or a stream that
 * ends without a `response.*` terminal event, rejects; a `failed` response resolves (its
 * `status` and `error` say so).
 */
export async function readResponseStream(chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>, options: SseDecoderOptions = {}): Promise<ResponseObject> {
  const accumulator = new ResponseAccumulator();
  const reader = createResponseEventReader((event) => accumulator.apply(event), options);
  for await (const chunk of chunks) reader.feed(chunk);
  reader.end();
  const response = accumulator.snapshot;
  if (accumulator.error !== undefined && response?.status !== 'failed') throw accumulator.error;
  if (response === undefined) throw new ResponseStreamProtocolError('The Responses stream ended without any event.');
  if (response.status === 'in_progress' || response.status === 'queued') {
    throw new ResponseStreamFailedError('The Responses stream ended before its response did.', null, null);
  }
  return response;
}
