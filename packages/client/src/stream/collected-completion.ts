import type { ToolCall, Usage } from '@quantum-chat/core';

/** A stream folded into one message: what `stream.collect()` resolves to. */
export interface CollectedCompletion {
  /** The completion id (`chatcmpl-…`) of the chunks, if the server sent one. */
  id: string | undefined;
  model: string | undefined;
  /** Every reasoning piece, concatenated in order ('' when there was none). */
  reasoning: string;
  /** Every content piece, concatenated in order ('' when there was none). */
  content: string;
  /** The tool calls rebuilt from their fragments, in index order. */
  toolCalls: ToolCall[];
  /** `stop`, `length`, `tool_calls`, or what another server sent; `null` if none came. */
  finishReason: string | null;
  /** The last usage the stream reported, or `null`. */
  usage: Usage | null;
}
