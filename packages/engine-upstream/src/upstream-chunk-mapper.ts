import type { ChatEngineEvent, EngineUsage } from '@quantum-chat/core';
import { createThinkTagSplitter } from './think-tag-splitter.js';
import type { UpstreamChunk, UpstreamUsage } from './upstream-chunk-schema.js';
import { createUpstreamToolCallMapper } from './upstream-tool-call-mapper.js';

type FinishEvent = Extract<ChatEngineEvent, { type: 'finish' }>;

export interface UpstreamChunkMapperOptions {
  /** Yield reasoning events; when false, reasoning is still split out of the content and counted. */
  showReasoning: boolean;
  countTokens(text: string): number;
  /** Prompt tokens when the upstream reports none. */
  countPromptTokens(): number;
}

/** Turns upstream chunks into engine events. */
export interface UpstreamChunkMapper {
  push(chunk: UpstreamChunk): ChatEngineEvent[];
  /** The last events: held text, unnamed tool calls, and `finish` with usage. */
  end(): ChatEngineEvent[];
  /** The upstream has produced something: a token of any kind, or a finish reason. */
  readonly started: boolean;
  /** The upstream sent a `finish_reason`. */
  readonly finished: boolean;
}

function toFinishReason(upstream: string | undefined, toolCalls: number): FinishEvent['reason'] {
  if (upstream === 'length') return 'length';
  // `stop` with calls is `tool_calls` on our wire; `tool_calls` without any is a plain stop.
  return toolCalls > 0 ? 'tool_calls' : 'stop';
}

/**
 * Maps one upstream stream, chunk by chunk: reasoning from `reasoning_content`, `reasoning` or
 * a leading `<think>` block; content; tool calls with index discipline; then `finish` with the
 * upstream's usage, or counted usage where it reported none.
 *
 * @example
 * const mapper = createUpstreamChunkMapper({ showReasoning: true, countTokens, countPromptTokens: () => 0 });
 * mapper.push({ choices: [{ delta: { reasoning_content: 'Hmm.' } }] }); // [{ type: 'reasoning', text: 'Hmm.' }]
 */
export function createUpstreamChunkMapper(options: UpstreamChunkMapperOptions): UpstreamChunkMapper {
  const splitter = createThinkTagSplitter();
  const toolCalls = createUpstreamToolCallMapper();
  let finishReason: string | undefined;
  let usage: UpstreamUsage | undefined;
  let reasoningText = '';
  let otherText = '';
  let started = false;

  function reasoning(text: string, events: ChatEngineEvent[]): void {
    reasoningText += text;
    if (options.showReasoning) events.push({ type: 'reasoning', text });
  }

  function split(pieces: ReturnType<typeof splitter.push>, events: ChatEngineEvent[]): void {
    for (const piece of pieces) {
      if (piece.type === 'reasoning') reasoning(piece.text, events);
      else {
        otherText += piece.text;
        events.push({ type: 'content', text: piece.text });
      }
    }
  }

  function push(chunk: UpstreamChunk): ChatEngineEvent[] {
    const events: ChatEngineEvent[] = [];
    // Usage may come on every chunk (vLLM's continuous usage) or once at the end: keep the last.
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    const delta = choice?.delta ?? choice?.message;
    if (delta) {
      // Some runtimes send both fields with the same text: one is enough.
      const thought = delta.reasoning_content ?? delta.reasoning;
      if (thought) reasoning(thought, events);
      if (delta.content) split(splitter.push(delta.content), events);
      if (delta.tool_calls?.length) {
        for (const event of toolCalls.push(delta.tool_calls)) {
          otherText += (event.name ?? '') + event.argumentsDelta;
          events.push(event);
        }
      }
      if (thought || delta.content || delta.tool_calls?.length) started = true;
    }
    if (choice?.finish_reason) {
      finishReason = choice.finish_reason;
      started = true;
    }
    return events;
  }

  function finalUsage(): EngineUsage {
    const reasoningCount = options.countTokens(reasoningText);
    const completionTokens = usage?.completion_tokens ?? reasoningCount + options.countTokens(otherText);
    return {
      promptTokens: usage?.prompt_tokens ?? options.countPromptTokens(),
      completionTokens,
      reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? Math.min(reasoningCount, completionTokens),
    };
  }

  function end(): ChatEngineEvent[] {
    const events: ChatEngineEvent[] = [];
    split(splitter.end(), events);
    for (const event of toolCalls.end()) {
      otherText += event.argumentsDelta;
      events.push(event);
    }
    events.push({ type: 'finish', reason: toFinishReason(finishReason, toolCalls.count), usage: finalUsage() });
    return events;
  }

  return {
    push,
    end,
    get started() {
      return started;
    },
    get finished() {
      return finishReason !== undefined;
    },
  };
}
