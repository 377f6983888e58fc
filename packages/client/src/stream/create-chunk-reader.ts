import type { SseEvent, Usage } from '@quantum-chat/core';
import { APIResponseValidationError } from '../errors/connection-errors.js';
import { createApiError } from '../errors/create-api-error.js';
import type { ChatStreamEvent } from './chat-stream-event.js';
import { learnChunkTemplate, matchChunkTemplate, type ChunkTemplate } from './chunk-template.js';
import { createToolCallIndexer } from './create-tool-call-indexer.js';

/** Turns decoded SSE events into typed stream events. @internal */
export interface ChunkReader {
  /**
   * Appends the events of one SSE event to `out`; throws the API error of an error frame or
   * payload (after appending nothing for that event).
   */
  read(event: SseEvent, out: ChatStreamEvent[]): void;
  /** `data: [DONE]` was read: the stream ended as it should. */
  readonly done: boolean;
  /** The `id` and `model` of the first chunk that had them. */
  readonly id: string | undefined;
  readonly model: string | undefined;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * A reader for both stream formats of decisions §4 and the dialects of other OpenAI-style
 * servers: named `thought_trace`/`message`/`error` events or unnamed data lines; reasoning in
 * the thought trace's top-level `delta`, in `reasoning_content` or in `reasoning` (one of them
 * per chunk, never two: our thought traces carry the same text twice); tool calls with or
 * without `index`, with ids repeated or sent once, whole or in fragments, with arguments as a
 * string or an object; usage on any chunk; errors as `event: error` or `data: {"error":…}`.
 * Unknown event names (pings) and everything after `[DONE]` are ignored.
 *
 * @internal
 */
export function createChunkReader(headers: Record<string, string> = {}): ChunkReader {
  let done = false;
  let id: string | undefined;
  let model: string | undefined;
  const toolCallIndexer = createToolCallIndexer();
  /** The last learned chunk shape of `message` (0) and `thought_trace` (1) events. */
  const templates: (ChunkTemplate | undefined)[] = [undefined, undefined];
  /** Chunks matched by the current templates, and learning attempts left (spent on shapes that never repeat). */
  let templateHits = 0;
  let learnCredits = learnCreditLimit;

  function parse(data: string): unknown {
    try {
      return JSON.parse(data);
    } catch (error) {
      throw new APIResponseValidationError(`The stream sent data that is not JSON: ${data.slice(0, 200)}`, { cause: error, headers });
    }
  }

  function readToolCalls(calls: unknown, events: ChatStreamEvent[]): void {
    if (!Array.isArray(calls)) return;
    for (const call of calls) {
      if (!isObject(call)) continue;
      const fn = isObject(call.function) ? call.function : {};
      const rawArguments = fn.arguments;
      const argumentsDelta = typeof rawArguments === 'string' ? rawArguments : isObject(rawArguments) ? JSON.stringify(rawArguments) : '';
      const callId = nonEmptyString(call.id);
      const name = nonEmptyString(fn.name);
      const wireIndex = typeof call.index === 'number' ? call.index : undefined;
      const index = toolCallIndexer.resolve({ index: wireIndex, id: callId, name });
      const event: ChatStreamEvent = { type: 'tool-call-delta', index, argumentsDelta };
      if (callId !== undefined) event.id = callId;
      if (name !== undefined) event.name = name;
      events.push(event);
    }
  }

  function readUsage(value: unknown): Usage | undefined {
    if (!isObject(value) || typeof value.prompt_tokens !== 'number' || typeof value.completion_tokens !== 'number') return undefined;
    const total = typeof value.total_tokens === 'number' ? value.total_tokens : value.prompt_tokens + value.completion_tokens;
    return { ...value, total_tokens: total } as Usage;
  }

  function readChunk(chunk: JsonObject, isThoughtTrace: boolean, events: ChatStreamEvent[]): void {
    id ??= nonEmptyString(chunk.id);
    model ??= nonEmptyString(chunk.model);
    const traceText = isThoughtTrace && typeof chunk.delta === 'string' ? chunk.delta : undefined;
    if (traceText) events.push({ type: 'reasoning', text: traceText });
    let finishReason: string | undefined;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) {
      // Only the first choice: `n` other than 1 is refused by our server and rare elsewhere.
      if (!isObject(choice) || (typeof choice.index === 'number' && choice.index !== 0)) continue;
      const delta = isObject(choice.delta) ? choice.delta : {};
      const reasoning = nonEmptyString(delta.reasoning_content) ?? nonEmptyString(delta.reasoning);
      if (reasoning !== undefined && traceText === undefined) events.push({ type: 'reasoning', text: reasoning });
      const content = nonEmptyString(delta.content);
      if (content !== undefined) events.push({ type: 'content', text: content });
      readToolCalls(delta.tool_calls, events);
      finishReason ??= nonEmptyString(choice.finish_reason);
    }
    const usage = readUsage(chunk.usage);
    if (usage !== undefined) events.push({ type: 'usage', usage });
    if (finishReason !== undefined) events.push({ type: 'finish', finishReason });
  }

  function read(event: SseEvent, out: ChatStreamEvent[]): void {
    if (done) return;
    const name = event.event ?? 'message';
    if (name === 'error') {
      const payload = safeParse(event.data);
      throw createApiError(undefined, isObject(payload) && 'error' in payload ? payload : { error: { message: event.data || 'The stream failed.' } }, headers);
    }
    if (name !== 'message' && name !== 'thought_trace') return;
    const data = event.data;
    // A chunk starts with `{`: only other data can be `[DONE]` (perhaps with spaces around it).
    if (data.charCodeAt(0) !== 123 && data.trim() === '[DONE]') {
      done = true;
      return;
    }
    const isThoughtTrace = name === 'thought_trace';
    const slot = isThoughtTrace ? 1 : 0;
    const template = templates[slot];
    // Most chunks repeat the shape of the one before them: read them without a parse.
    if (template !== undefined && matchChunkTemplate(template, data)) {
      if (++templateHits >= learnCreditLimit * 2) learnCredits = learnCreditLimit;
      readChunk(template.chunk, isThoughtTrace, out);
      return;
    }
    const payload = parse(data);
    if (!isObject(payload)) throw new APIResponseValidationError(`The stream sent a chunk that is not an object: ${data.slice(0, 200)}`, { headers });
    if (payload.error !== undefined && payload.error !== null) throw createApiError(undefined, payload, headers);
    readChunk(payload, isThoughtTrace, out);
    if (learnCredits > 0) {
      // Learned after reading: readChunk keeps nothing of the chunk but strings and copies.
      learnCredits--;
      templateHits = 0;
      templates[slot] = learnChunkTemplate(data, payload) ?? template;
    }
  }

  return {
    read,
    get done() {
      return done;
    },
    get id() {
      return id;
    },
    get model() {
      return model;
    },
  };
}

/** Chunk shapes learned in a row that were never matched before parsing stops learning. */
const learnCreditLimit = 8;

function safeParse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
