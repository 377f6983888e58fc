import { encodeCompletionBody } from '../wire/completion-body.js';
import type { ErrorEnvelope } from '../schemas/error-envelope.js';
import type { TokenLogprob } from '../schemas/logprobs.js';
import type { ToolCall } from '../schemas/tool-call.js';
import type { Usage } from '../schemas/usage.js';
import type { StreamFrame } from './stream-store.js';

/** How a finished chat stream ended: its non-streaming body, or the error its last frame carried. */
export type StreamResult = { kind: 'completion'; body: string } | { kind: 'error'; envelope: ErrorEnvelope };

interface ChunkDelta {
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
}

interface Chunk {
  id?: string;
  created?: number;
  model?: string;
  choices?: Array<{ delta?: ChunkDelta; finish_reason?: string | null; logprobs?: { content?: TokenLogprob[] } | null }>;
  usage?: Usage;
  error?: ErrorEnvelope['error'];
}

/** The `data:` payload of one frame ('' for none). */
function dataOf(frame: string): string {
  const start = frame.indexOf('data: ');
  if (start === -1) return '';
  const end = frame.indexOf('\n', start);
  return frame.slice(start + 6, end === -1 ? undefined : end);
}

/**
 * The `chat.completion` a finished stream amounts to (decisions §4.7): its chunks merged as a
 * client merges them, so the result of a stream is what its reader assembled. Read only when
 * asked for (`GET /v1/chat/completions/{id}`): the producer keeps no second copy.
 */
export function completionFromFrames(frames: readonly StreamFrame[]): StreamResult {
  let id = '';
  let created = 0;
  let model = '';
  let reasoning: string | undefined;
  let content = '';
  const toolCalls: ToolCall[] = [];
  let finishReason = 'stop';
  let usage: Usage | undefined;
  let logprobs: TokenLogprob[] | undefined;
  for (const { frame } of frames) {
    const data = dataOf(frame);
    if (data === '' || data === '[DONE]') continue;
    const chunk = JSON.parse(data) as Chunk;
    if (chunk.error !== undefined) return { kind: 'error', envelope: { error: chunk.error } };
    id = chunk.id ?? id;
    created = chunk.created ?? created;
    model = chunk.model ?? model;
    if (chunk.usage !== undefined) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (choice === undefined) continue;
    if (choice.finish_reason != null) finishReason = choice.finish_reason;
    if (choice.logprobs?.content !== undefined) (logprobs ??= []).push(...choice.logprobs.content);
    const delta = choice.delta;
    if (delta === undefined) continue;
    if (delta.reasoning_content !== undefined) reasoning = (reasoning ?? '') + delta.reasoning_content;
    if (typeof delta.content === 'string') content += delta.content;
    for (const call of delta.tool_calls ?? []) {
      const known = toolCalls[call.index];
      if (known === undefined) toolCalls[call.index] = { id: call.id ?? '', type: 'function', function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' } };
      else known.function.arguments += call.function?.arguments ?? '';
    }
  }
  const body = encodeCompletionBody({
    id,
    created,
    model,
    reasoning,
    content: content === '' && toolCalls.length > 0 ? null : content,
    toolCalls,
    finishReason,
    logprobs,
    usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, completion_tokens_details: { reasoning_tokens: 0 } },
  });
  return { kind: 'completion', body };
}
