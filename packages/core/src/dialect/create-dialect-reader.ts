import type { SseEvent } from '../sse/create-sse-decoder.js';
import { learnChunkTemplate, matchChunkTemplate, type ChunkTemplate } from './chunk-template.js';
import type { TokenLogprob } from '../schemas/logprobs.js';
import { readErrorPayload, type WireError } from './read-error-payload.js';
import { readTokenLogprobs } from './read-token-logprobs.js';
import { createThinkTagSplitter, type ThinkTagPiece, type ThinkTagSplitter } from './think-tag-splitter.js';
import { createToolCallTracker, type ToolCallTracker, type TrackedToolCall } from './tool-call-tracker.js';

/** Token counts as OpenAI-style servers report them (every count may be missing). */
export interface WireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  completion_tokens_details?: { reasoning_tokens?: number | null; [key: string]: unknown } | null;
  [key: string]: unknown;
}

/**
 * What a {@link DialectReader} reports, in stream order. The reader hands over strings and the
 * tracker's calls, never objects of the chunk (except `usage`), so a consumer may keep them.
 */
export interface DialectSink {
  /** A piece of reasoning: a thought trace, `reasoning_content`, `reasoning`, or a `<think>` block. */
  reasoning(text: string): void;
  /** A piece of the answer (never empty). */
  content(text: string): void;
  /**
   * A tool-call fragment: the call it belongs to (see `createToolCallTracker`), the argument
   * text it added (`''` for none or a resend), and the `id` and `name` the fragment carried.
   */
  toolCall(call: TrackedToolCall, argumentsDelta: string, id: string | undefined, name: string | undefined): void;
  /** A chunk's usage (a fresh object of the parsed chunk; its counts are numbers or missing). */
  usage(usage: WireUsage): void;
  /** A non-empty `finish_reason`. */
  finish(finishReason: string): void;
  /**
   * The token log probabilities a chunk carried in `choices[0].logprobs.content` (fresh
   * objects), after the chunk's content. Optional: without it they are not read.
   */
  logprobs?(entries: TokenLogprob[]): void;
  /**
   * An error payload or an `event: error` frame. Must throw: the stream failed. `payload` is the
   * parsed data (the text itself when an error frame's data is not JSON).
   */
  error(error: WireError, payload: unknown): never;
  /**
   * Data that is not a chunk. Must throw. `problem` says what it is (`data that is not JSON`,
   * `a chunk whose choices[0].delta.content is not a string`…); `data` is the event's text.
   */
  malformed(problem: string, data: string): never;
}

/** Options of {@link createDialectReader}. */
export interface DialectReaderOptions {
  /**
   * Split a leading `<think>…</think>` block out of the content as reasoning, however its tags
   * are cut across chunks: for models served without a reasoning parser (Qwen3, QwQ,
   * DeepSeek-R1 distills). Off by default: the content stays as the server sent it.
   */
  thinkTags?: boolean;
  /**
   * The longest arguments one tool call may gather, in UTF-16 units; longer goes to `malformed`
   * (a server that never ends a call must not grow it without bound). Unlimited by default.
   */
  maxToolArgumentsLength?: number;
}

/** Reads one stream of OpenAI-style chunks, whatever dialect the server speaks. */
export interface DialectReader {
  /**
   * Reads one server-sent event: a chunk (`message`, `thought_trace` or unnamed), `[DONE]`, or
   * an error (`event: error`, or an error payload in a data line, which wins even if `[DONE]`
   * follows). Other event names (pings) and everything after `[DONE]` are ignored.
   */
  read(event: SseEvent): void;
  /** Reads one parsed chunk, or a whole `chat.completion` (its `message` is read like a delta). */
  readChunk(value: unknown): void;
  /** The stream ended: reports text held back while a `<think>` tag was undecided. */
  end(): void;
  /** `[DONE]` was read. */
  done(): boolean;
  /** The server has produced something: reasoning, content, a tool call, or a finish reason. */
  started(): boolean;
  /** The `id` and `model` of the first chunk that had them. */
  id(): string | undefined;
  model(): string | undefined;
  /** The `system_fingerprint` of the first chunk that had one (at most 256 characters; a longer one is not kept). */
  systemFingerprint(): string | undefined;
  /** The tool calls of the stream so far. */
  readonly toolCalls: ToolCallTracker;
}

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'number' && Number.isFinite(value));
}

/** The longest `system_fingerprint` kept: OpenAI's are a dozen characters; a long one is no fingerprint. */
const maxFingerprintLength = 256;

function fingerprintOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= maxFingerprintLength ? value : undefined;
}

/** Chunk shapes learned in a row that were never matched before learning stops. */
const learnCreditLimit = 8;

/**
 * Whether a parsed chunk's shape may come again, so that learning it can pay: not the stream's
 * first chunk (usually the one naming the role, whose shape never repeats) and not one that
 * finishes the answer. Learning costs about as much as parsing a few chunks, and a short stream
 * paid it for shapes it never saw again.
 */
function shapeMayRepeat(payload: Record<string, unknown>, first: boolean): boolean {
  if (first) return false;
  const choices = payload.choices;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  return !isObject(choice) || choice.finish_reason === null || choice.finish_reason === undefined;
}

/**
 * Creates the one reader of the OpenAI-style wire: the client and the upstream engine both
 * read their streams with it. It understands:
 *
 * - both formats of docs/spec/decisions.md §4: named `thought_trace`/`message`/`error` events
 *   (the thought trace's top-level `delta` is read once, not again from its `reasoning_content`)
 *   and unnamed data lines;
 * - reasoning in `reasoning_content` (DeepSeek, llama.cpp) or `reasoning` (vLLM, Ollama,
 *   OpenRouter), see `findReasoning`, and optionally a leading `<think>` block in the content;
 * - tool calls with or without `index`, ids repeated or sent once, whole calls in one chunk,
 *   arguments as a string or an object, through one `createToolCallTracker`;
 * - usage on any chunk, `[DONE]`, and errors in every shape of `readErrorPayload`.
 *
 * It is strict about the fields it reads (a `content` that is not a string is a malformed
 * chunk, never silently dropped) and ignores every other field. Only the first choice is read.
 *
 * Most chunks of a stream repeat the shape of the one before: such a chunk is read through a
 * learned template of that shape instead of `JSON.parse` (see `chunk-template.ts`).
 *
 * @example
 * const reader = createDialectReader(sink);
 * const decoder = createSseDecoder({ onEvent: (event) => reader.read(event) });
 */
export function createDialectReader(sink: DialectSink, options: DialectReaderOptions = {}): DialectReader {
  const tracker = createToolCallTracker();
  const splitter: ThinkTagSplitter | undefined = options.thinkTags === true ? createThinkTagSplitter() : undefined;
  const maxArguments = options.maxToolArgumentsLength ?? Number.POSITIVE_INFINITY;
  let isDone = false;
  let hasStarted = false;
  let chunkId: string | undefined;
  let chunkModel: string | undefined;
  let chunkFingerprint: string | undefined;
  /** The data of the event being read, for `malformed`. */
  let currentData = '';
  /** The last learned chunk shape of `message` (0) and `thought_trace` (1) events. */
  const templates: (ChunkTemplate | undefined)[] = [undefined, undefined];
  /** Chunks matched by the current templates, and learning attempts left (spent on shapes that never repeat). */
  let templateHits = 0;
  let learnCredits = learnCreditLimit;
  /** A chunk was parsed: the next one is not the stream's first. */
  let parsedOne = false;

  function malformed(problem: string): never {
    return sink.malformed(problem, currentData);
  }

  function emitPieces(pieces: ThinkTagPiece[]): void {
    for (const piece of pieces) {
      if (piece.type === 'reasoning') sink.reasoning(piece.text);
      else sink.content(piece.text);
    }
  }

  /**
   * Where a field of the delta being read sits, for `malformed`. Kept as numbers and written out
   * only on failure: building the path for every field of every chunk would cost a string each.
   */
  let choicePosition = 0;
  let callPosition = -1;

  function fieldPath(field: string): string {
    const call = callPosition === -1 ? '' : `.tool_calls[${callPosition}]`;
    return `choices[${choicePosition}].delta${call}${field === '' ? '' : `.${field}`}`;
  }

  function badField(field: string, problem: string): never {
    return malformed(`a chunk whose ${fieldPath(field)} ${problem}`);
  }

  /** A string field of the delta or a tool call, `undefined` when absent or null; anything else is malformed. */
  function stringField(value: unknown, field: string): string | undefined {
    if (typeof value === 'string') return value;
    if (value === null || value === undefined) return undefined;
    return badField(field, 'is not a string');
  }

  function readToolCall(call: unknown): void {
    if (!isObject(call)) badField('', 'is not an object');
    const wireIndex = call.index;
    if (wireIndex !== null && wireIndex !== undefined && !(Number.isSafeInteger(wireIndex) && (wireIndex as number) >= 0)) {
      badField('index', 'is not a whole number');
    }
    const id = stringField(call.id, 'id') || undefined;
    const fn = call.function;
    let name: string | undefined;
    let piece: string | undefined;
    if (fn !== null && fn !== undefined) {
      if (!isObject(fn)) badField('function', 'is not an object');
      name = stringField(fn.name, 'function.name') || undefined;
      const raw = fn.arguments;
      if (typeof raw === 'string') piece = raw;
      else if (isObject(raw)) piece = JSON.stringify(raw);
      else if (raw !== null && raw !== undefined) badField('function.arguments', 'is neither a string nor an object');
    }
    const tracked = tracker.track((wireIndex as number | null | undefined) ?? undefined, id, name, piece);
    if (tracked.arguments.length > maxArguments) malformed(`a tool call whose arguments are longer than ${maxArguments} characters`);
    sink.toolCall(tracked, tracker.appended(), id, name);
  }

  function readDelta(delta: Loose, traceRead: boolean): void {
    const reasoningContent = stringField(delta.reasoning_content, 'reasoning_content');
    const reasoning = stringField(delta.reasoning, 'reasoning');
    // A thought trace's top-level `delta` already said what its reasoning_content says.
    const thought = reasoningContent || reasoning;
    if (thought && !traceRead) {
      hasStarted = true;
      sink.reasoning(thought);
    }
    const content = stringField(delta.content, 'content');
    if (content) {
      hasStarted = true;
      // Past the leading block (or without one), content goes straight on: no pieces made per chunk.
      if (splitter === undefined || splitter.passesThrough()) sink.content(content);
      else emitPieces(splitter.push(content));
    }
    const toolCalls = delta.tool_calls;
    if (toolCalls !== null && toolCalls !== undefined) {
      if (!Array.isArray(toolCalls)) badField('tool_calls', 'is not an array');
      if (toolCalls.length > 0) hasStarted = true;
      for (let position = 0; position < toolCalls.length; position++) {
        callPosition = position;
        readToolCall(toolCalls[position]);
      }
      callPosition = -1;
    }
  }

  function readUsage(usage: unknown): void {
    if (!isObject(usage)) malformed('a chunk whose usage is not an object');
    const details = usage.completion_tokens_details;
    if (
      !isCount(usage.prompt_tokens) ||
      !isCount(usage.completion_tokens) ||
      !isCount(usage.total_tokens) ||
      !(details === null || details === undefined || (isObject(details) && isCount(details.reasoning_tokens)))
    ) {
      malformed('a chunk whose usage has a count that is not a number');
    }
    sink.usage(usage as WireUsage);
  }

  function readObject(chunk: Loose, isThoughtTrace: boolean): void {
    if (chunkId === undefined && typeof chunk.id === 'string' && chunk.id !== '') chunkId = chunk.id;
    if (chunkModel === undefined && typeof chunk.model === 'string' && chunk.model !== '') chunkModel = chunk.model;
    if (chunkFingerprint === undefined) chunkFingerprint = fingerprintOf(chunk.system_fingerprint);
    const trace = isThoughtTrace && typeof chunk.delta === 'string' ? chunk.delta : undefined;
    const traceRead = trace !== undefined;
    if (trace) {
      hasStarted = true;
      sink.reasoning(trace);
    }
    let finishReason: string | undefined;
    callPosition = -1;
    const choices = chunk.choices;
    if (choices !== null && choices !== undefined) {
      if (!Array.isArray(choices)) malformed('a chunk whose choices is not an array');
      for (let position = 0; position < choices.length; position++) {
        const choice: unknown = choices[position];
        if (!isObject(choice)) malformed(`a chunk whose choices[${position}] is not an object`);
        // Only the first choice: `n` other than 1 is refused by our server and rare elsewhere.
        if (typeof choice.index === 'number' && choice.index !== 0) continue;
        const delta = choice.delta ?? choice.message;
        choicePosition = position;
        if (delta !== null && delta !== undefined) {
          if (!isObject(delta)) malformed(`a chunk whose choices[${position}].delta is not an object`);
          readDelta(delta, traceRead);
        }
        if (sink.logprobs !== undefined && choice.logprobs !== null && choice.logprobs !== undefined) {
          const entries = readTokenLogprobs(choice.logprobs);
          if (entries !== undefined && entries.length > 0) sink.logprobs(entries);
        }
        const reason = choice.finish_reason;
        if (reason !== null && reason !== undefined && typeof reason !== 'string') malformed(`a chunk whose choices[${position}].finish_reason is not a string`);
        if (reason && finishReason === undefined) finishReason = reason;
      }
    }
    const usage = chunk.usage;
    if (usage !== null && usage !== undefined) readUsage(usage);
    if (finishReason !== undefined) {
      hasStarted = true;
      sink.finish(finishReason);
    }
  }

  function readChunk(value: unknown): void {
    if (!isObject(value)) malformed('a chunk that is not a JSON object');
    const error = readErrorPayload(value);
    if (error !== undefined) sink.error(error, value);
    readObject(value, false);
  }

  function parse(data: string): unknown {
    try {
      return JSON.parse(data);
    } catch {
      return malformed('data that is not JSON');
    }
  }

  function read(event: SseEvent): void {
    if (isDone) return;
    const name = event.event;
    const data = event.data;
    currentData = data;
    if (name === 'error') {
      let payload: unknown = data;
      try {
        payload = JSON.parse(data);
      } catch {
        // Not JSON: its text is the message.
      }
      sink.error(readErrorPayload(payload) ?? { message: data.trim() || 'The stream failed.', type: null, code: null, param: null, status: undefined }, payload);
    }
    if (name !== undefined && name !== 'message' && name !== 'thought_trace') return;
    // A chunk starts with `{`: only other data can be `[DONE]` (perhaps with spaces around it).
    if (data.charCodeAt(0) !== 123 && data.trim() === '[DONE]') {
      isDone = true;
      return;
    }
    const isThoughtTrace = name === 'thought_trace';
    const slot = isThoughtTrace ? 1 : 0;
    const template = templates[slot];
    if (template !== undefined && matchChunkTemplate(template, data)) {
      if (++templateHits >= learnCreditLimit * 2) learnCredits = learnCreditLimit;
      readObject(template.chunk, isThoughtTrace);
      return;
    }
    const payload = parse(data);
    if (!isObject(payload)) malformed('a chunk that is not a JSON object');
    const error = readErrorPayload(payload);
    if (error !== undefined) sink.error(error, payload);
    readObject(payload, isThoughtTrace);
    const first = !parsedOne;
    parsedOne = true;
    if (learnCredits > 0 && shapeMayRepeat(payload, first)) {
      // Learned after reading: the reader keeps nothing of the chunk but strings and copies.
      learnCredits--;
      templateHits = 0;
      templates[slot] = learnChunkTemplate(data, payload) ?? template;
    }
  }

  return {
    read,
    readChunk(value) {
      currentData = '';
      readChunk(value);
    },
    end() {
      if (splitter !== undefined) emitPieces(splitter.end());
    },
    done: () => isDone,
    started: () => hasStarted,
    id: () => chunkId,
    model: () => chunkModel,
    systemFingerprint: () => chunkFingerprint,
    toolCalls: tracker,
  };
}
