import type { TokenLogprob, Usage } from '@quantum-chat/core';

/**
 * One typed event of a chat completion stream, whatever format or dialect the server spoke.
 * Text events carry only the new piece; `collect()` concatenates them.
 */
export type ChatStreamEvent =
  /** A piece of the reasoning trace (`thought_trace`, `reasoning_content` or `reasoning`). */
  | { type: 'reasoning'; text: string }
  /** A piece of the answer, with its tokens' log probabilities when the request set `logprobs`. */
  | { type: 'content'; text: string; logprobs?: TokenLogprob[] }
  /** A fragment of a tool call; `id` and `name` come with the first fragment of a call (some servers repeat them). */
  | { type: 'tool-call-delta'; index: number; id?: string; name?: string; argumentsDelta: string }
  /** Token counts: on the last chunk, or (with `stream_options.include_usage`) on a `choices: []` chunk after it. */
  | { type: 'usage'; usage: Usage }
  /** Why generation stopped: `stop`, `length`, `tool_calls` (or what another server sends). */
  | { type: 'finish'; finishReason: string };
