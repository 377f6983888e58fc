import { QuantumChatError, type ChatEngineEvent, type TokenLogprob } from '@quantum-chat/core';
import type { SseEvent } from '@quantum-chat/core/sse';
import { createDialectReader, type DialectReader, type DialectSink, type TrackedToolCall, type WireError, type WireUsage } from '@quantum-chat/core/dialect';
import { AnswerRelay, type AnswerRelayOptions, type ContentEvent } from './answer-relay.js';
import { failureFromStatus } from './upstream-failure.js';

export interface UpstreamChunkMapperOptions extends AnswerRelayOptions {
  /** The longest arguments of one tool call (the dialect reader's limit); longer is an upstream fault. Unlimited by default. */
  maxToolArgumentsLength?: number;
}

/** Turns an upstream stream into engine events. */
export interface UpstreamChunkMapper {
  /** The events of one upstream server-sent event; throws the failure of an error frame or payload. */
  read(event: SseEvent): ChatEngineEvent[];
  /** The events of a whole JSON completion (a runtime that ignored `stream: true`). */
  readWhole(value: unknown): ChatEngineEvent[];
  /** The last events: held text, unnamed tool calls, and `finish` with usage. */
  end(): ChatEngineEvent[];
  /** `[DONE]` was read: the answer is complete. */
  done(): boolean;
  /** The upstream has produced something: a token of any kind, or a finish reason. */
  started(): boolean;
  /** The upstream sent a `finish_reason`. */
  finished(): boolean;
  /** The relay budget is spent: relay nothing more, end the answer with `length`. */
  cut(): boolean;
}

/** Only this much of an upstream's message goes into ours. */
const maxMessageLength = 500;

/** An error the upstream sent inside a 200 stream; an HTTP status it names maps like that status. */
export function streamedFailure(error: WireError): QuantumChatError {
  if (error.status !== undefined) return failureFromStatus(error.status, new Headers(), error.message);
  return new QuantumChatError('upstream_error', `The model server failed during the answer: ${error.message.slice(0, maxMessageLength)}`);
}

/**
 * Maps one upstream stream with the core's dialect reader (every dialect, leading `<think>`
 * blocks included) to engine events: reasoning, content, tool calls whose first event carries
 * the name (arguments that come first are held until then), then `finish` with the upstream's
 * usage once checked against our own count (decisions §6), or our count where it reported none,
 * with the details and `system_fingerprint` it reported in OpenAI's fields (decisions §3).
 *
 * @example
 * const mapper = createUpstreamChunkMapper({ showReasoning: true, countTokens, countPromptTokens: () => 0, maxTokens: 4096 });
 * mapper.read({ event: undefined, data: '{"choices":[{"delta":{"reasoning_content":"Hmm."}}]}', id: undefined }); // [{ type: 'reasoning', text: 'Hmm.' }]
 */
export function createUpstreamChunkMapper(options: UpstreamChunkMapperOptions): UpstreamChunkMapper {
  return new ChatChunkMapper(options);
}

/**
 * What the dialect reader reports, turned into relayed events. A class, not an object of
 * closures: one object a request instead of eight functions and their context.
 */
class RelayingSink implements DialectSink {
  readonly relay: AnswerRelay;
  finishReason: string | undefined = undefined;
  reportedUsage: WireUsage | undefined = undefined;
  /** Token logprobs whose text is still held (a `<think>` tag undecided): they go with the next content. */
  heldLogprobs: TokenLogprob[] | undefined = undefined;
  /** The content event of the chunk being read, which its logprobs join. */
  chunkContent: ContentEvent | undefined = undefined;

  constructor(relay: AnswerRelay) {
    this.relay = relay;
  }

  reasoning(whole: string): void {
    this.relay.reasoning(whole);
  }

  content(whole: string): void {
    const event = this.relay.content(whole);
    if (event === undefined) return;
    if (this.heldLogprobs !== undefined) {
      event.logprobs = this.heldLogprobs;
      this.heldLogprobs = undefined;
    }
    this.chunkContent = event;
  }

  logprobs(all: TokenLogprob[]): void {
    const entries = this.relay.logprobs(all);
    if (entries.length === 0) return;
    const target = this.chunkContent;
    if (target === undefined) this.heldLogprobs = this.heldLogprobs === undefined ? entries : [...this.heldLogprobs, ...entries];
    else target.logprobs = target.logprobs === undefined ? entries : [...target.logprobs, ...entries];
  }

  toolCall(call: TrackedToolCall, wholeDelta: string): void {
    this.relay.toolCall(call.index, call.name, call.arguments, wholeDelta);
  }

  usage(reported: WireUsage): void {
    // Usage may come on every chunk (vLLM's continuous usage) or once at the end: keep the last.
    this.reportedUsage = reported;
  }

  finish(reason: string): void {
    this.finishReason = reason;
  }

  error(error: WireError): never {
    throw streamedFailure(error);
  }

  malformed(problem: string): never {
    throw new QuantumChatError('upstream_error', `The model server sent ${problem}.`);
  }
}

class ChatChunkMapper implements UpstreamChunkMapper {
  readonly #sink: RelayingSink;
  readonly #reader: DialectReader;

  constructor(options: UpstreamChunkMapperOptions) {
    this.#sink = new RelayingSink(new AnswerRelay(options));
    this.#reader = createDialectReader(this.#sink, { thinkTags: true, ...(options.maxToolArgumentsLength !== undefined ? { maxToolArgumentsLength: options.maxToolArgumentsLength } : {}) });
  }

  read(event: SseEvent): ChatEngineEvent[] {
    this.#sink.chunkContent = undefined;
    this.#reader.read(event);
    return this.#sink.relay.take();
  }

  readWhole(value: unknown): ChatEngineEvent[] {
    this.#sink.chunkContent = undefined;
    this.#reader.readChunk(value);
    return this.#sink.relay.take();
  }

  end(): ChatEngineEvent[] {
    const reader = this.#reader;
    const { relay } = this.#sink;
    reader.end();
    // Calls whose name never came are announced with an empty one (not once the answer was cut: they may be past the cut).
    for (const call of relay.cut ? [] : reader.toolCalls.calls()) {
      if (relay.announced(call.index)) continue;
      if (!relay.unnamedCall(call.index, call.arguments)) break;
    }
    const finish = relay.finish(this.#sink.finishReason, this.#sink.reportedUsage);
    // What the upstream reported in OpenAI's fields is passed on (decisions §3).
    const fingerprint = reader.systemFingerprint();
    if (fingerprint !== undefined) finish.systemFingerprint = fingerprint;
    relay.push(finish);
    return relay.take();
  }

  done(): boolean {
    return this.#reader.done();
  }

  started(): boolean {
    return this.#reader.started();
  }

  finished(): boolean {
    return this.#sink.finishReason !== undefined;
  }

  cut(): boolean {
    return this.#sink.relay.cut;
  }
}
