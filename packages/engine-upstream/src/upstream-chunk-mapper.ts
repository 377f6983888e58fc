import { QuantumChatError, type ChatEngineEvent, type TokenLogprob } from '@quantum-chat/core';
import type { SseEvent } from '@quantum-chat/core/sse';
import { createDialectReader, type DialectSink, type WireError, type WireUsage } from '@quantum-chat/core/dialect';
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
  const relay = new AnswerRelay(options);
  let finishReason: string | undefined;
  let usage: WireUsage | undefined;
  /** Token logprobs whose text is still held (a `<think>` tag undecided): they go with the next content. */
  let heldLogprobs: TokenLogprob[] | undefined;
  /** The content event of the chunk being read, which its logprobs join. */
  let chunkContent: ContentEvent | undefined;

  const sink: DialectSink = {
    reasoning: (whole) => relay.reasoning(whole),
    content(whole) {
      const event = relay.content(whole);
      if (event === undefined) return;
      if (heldLogprobs !== undefined) {
        event.logprobs = heldLogprobs;
        heldLogprobs = undefined;
      }
      chunkContent = event;
    },
    logprobs(all) {
      const entries = relay.logprobs(all);
      if (entries.length === 0) return;
      const target = chunkContent;
      if (target === undefined) heldLogprobs = heldLogprobs === undefined ? entries : [...heldLogprobs, ...entries];
      else target.logprobs = target.logprobs === undefined ? entries : [...target.logprobs, ...entries];
    },
    toolCall: (call, wholeDelta) => relay.toolCall(call.index, call.name, call.arguments, wholeDelta),
    usage(reported) {
      // Usage may come on every chunk (vLLM's continuous usage) or once at the end: keep the last.
      usage = reported;
    },
    finish(reason) {
      finishReason = reason;
    },
    error(error): never {
      throw streamedFailure(error);
    },
    malformed(problem): never {
      throw new QuantumChatError('upstream_error', `The model server sent ${problem}.`);
    },
  };
  const reader = createDialectReader(sink, { thinkTags: true, ...(options.maxToolArgumentsLength !== undefined ? { maxToolArgumentsLength: options.maxToolArgumentsLength } : {}) });

  return {
    read(event) {
      chunkContent = undefined;
      reader.read(event);
      return relay.take();
    },
    readWhole(value) {
      chunkContent = undefined;
      reader.readChunk(value);
      return relay.take();
    },
    end() {
      reader.end();
      // Calls whose name never came are announced with an empty one (not once the answer was cut: they may be past the cut).
      for (const call of relay.cut ? [] : reader.toolCalls.calls()) {
        if (relay.announced(call.index)) continue;
        if (!relay.unnamedCall(call.index, call.arguments)) break;
      }
      const finish = relay.finish(finishReason, usage);
      // What the upstream reported in OpenAI's fields is passed on (decisions §3).
      const fingerprint = reader.systemFingerprint();
      if (fingerprint !== undefined) finish.systemFingerprint = fingerprint;
      relay.push(finish);
      return relay.take();
    },
    done: reader.done,
    started: reader.started,
    finished: () => finishReason !== undefined,
    cut: () => relay.cut,
  };
}
