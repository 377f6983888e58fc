import type { TokenLogprob } from '../schemas/logprobs.js';
import type { ToolCall } from '../schemas/tool-call.js';
import type { Usage } from '../schemas/usage.js';

export interface CompletionBodyParts {
  id: string;
  created: number;
  model: string;
  /** `undefined` for a model that shows no reasoning: the field is left out. */
  reasoning: string | undefined;
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string;
  /** The content tokens' log probabilities when the request asked for them, else `undefined` (`null` on the wire). */
  logprobs?: readonly TokenLogprob[] | undefined;
  usage: Usage;
  /** The model's `system_fingerprint`, when it reported one: written after `usage`, as OpenAI does. */
  systemFingerprint?: string | undefined;
}

/**
 * The non-streaming body (decisions §3), byte for byte what `JSON.stringify` gives for the
 * same object, written as a template: only the strings that vary are escaped. Building the
 * object with conditional spreads and serialising it was most of a short request's own cost
 * after the engine.
 */
export function encodeCompletionBody(parts: CompletionBodyParts): string {
  const reasoning = parts.reasoning === undefined ? '' : `"reasoning_content":${JSON.stringify(parts.reasoning)},`;
  const toolCalls = parts.toolCalls.length > 0 ? `,"tool_calls":${JSON.stringify(parts.toolCalls)}` : '';
  const logprobs = parts.logprobs === undefined ? 'null' : `{"content":${JSON.stringify(parts.logprobs)},"refusal":null}`;
  const fingerprint = parts.systemFingerprint === undefined ? '' : `,"system_fingerprint":${JSON.stringify(parts.systemFingerprint)}`;
  // `refusal: null` ends the message, where OpenAI puts it: its schema requires the field (decisions §3).
  return (
    `{"id":${JSON.stringify(parts.id)},"object":"chat.completion","created":${JSON.stringify(parts.created)},"model":${JSON.stringify(parts.model)},` +
    `"choices":[{"index":0,"message":{"role":"assistant",${reasoning}"content":${JSON.stringify(parts.content)}${toolCalls},"refusal":null},` +
    `"finish_reason":${JSON.stringify(parts.finishReason)},"logprobs":${logprobs}}],"usage":${JSON.stringify(parts.usage)}${fingerprint}}`
  );
}
