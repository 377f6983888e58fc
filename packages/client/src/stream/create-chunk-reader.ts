import type { SseEvent } from '@quantum-chat/core/sse';
import type { Usage } from '@quantum-chat/core';
import { createDialectReader, type DialectSink, type WireError, type WireUsage } from '@quantum-chat/core/dialect';
import { APIResponseValidationError } from '../errors/connection-errors.js';
import { apiErrorFromWire } from '../errors/create-api-error.js';
import type { ChatStreamEvent } from './chat-stream-event.js';

/** Turns decoded SSE events into typed stream events. @internal */
export interface ChunkReader {
  /**
   * Appends the events of one SSE event to `out`; throws the API error of an error frame or
   * payload (after appending nothing for that event).
   */
  read(event: SseEvent, out: ChatStreamEvent[]): void;
  /** `data: [DONE]` was read: the stream ended as it should. */
  done(): boolean;
  /** The `id` and `model` of the first chunk that had them. */
  id(): string | undefined;
  model(): string | undefined;
}

/** Usage with both counts, `total_tokens` filled in when the server left it out; else nothing. */
function toUsage(usage: WireUsage): Usage | undefined {
  const prompt = usage.prompt_tokens;
  const completion = usage.completion_tokens;
  if (typeof prompt !== 'number' || typeof completion !== 'number') return undefined;
  return { ...usage, total_tokens: typeof usage.total_tokens === 'number' ? usage.total_tokens : prompt + completion } as Usage;
}

/**
 * The client's stream reader: the core's dialect reader (both formats of decisions §4 and the
 * dialects of other OpenAI-style servers) with typed events out and the client's errors: an
 * error frame or payload throws its API error, data that is not a chunk throws
 * `APIResponseValidationError`.
 *
 * @internal
 */
export function createChunkReader(headers: Record<string, string> = {}): ChunkReader {
  /** Where the event being read puts its events. */
  let out: ChatStreamEvent[] = [];
  const sink: DialectSink = {
    reasoning(text) {
      out.push({ type: 'reasoning', text });
    },
    content(text) {
      out.push({ type: 'content', text });
    },
    logprobs(entries) {
      // They come after their chunk's content, which is the last content event handed out.
      const last = out.at(-1);
      if (last?.type === 'content') last.logprobs = last.logprobs === undefined ? entries : [...last.logprobs, ...entries];
    },
    toolCall(call, argumentsDelta, id, name) {
      const event: ChatStreamEvent = { type: 'tool-call-delta', index: call.index, argumentsDelta };
      if (id !== undefined) event.id = id;
      if (name !== undefined) event.name = name;
      out.push(event);
    },
    usage(usage) {
      const read = toUsage(usage);
      if (read !== undefined) out.push({ type: 'usage', usage: read });
    },
    finish(reason) {
      out.push({ type: 'finish', finishReason: reason });
    },
    error(error: WireError, payload): never {
      throw apiErrorFromWire(error, payload, headers);
    },
    malformed(problem, data): never {
      throw new APIResponseValidationError(`The stream sent ${problem}: ${data.slice(0, 200)}`, { headers });
    },
  };
  const reader = createDialectReader(sink);

  return {
    read(event, events) {
      out = events;
      const before = events.length;
      try {
        reader.read(event);
      } catch (error) {
        // Nothing of the event that failed is handed out.
        events.length = before;
        throw error;
      }
    },
    done: reader.done,
    id: reader.id,
    model: reader.model,
  };
}
