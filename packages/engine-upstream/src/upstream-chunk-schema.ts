import { toolCallDeltaSchema } from '@quantum-chat/core';
import * as z from 'zod';

// Lenient on purpose: a limited version of the OpenAI chunk, focussed on what we need and
// tolerant of what runtimes omit or add (`.nullish()` everywhere, loose objects).

/** Token counts as OpenAI-compatible runtimes report them. */
export const upstreamUsageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});
export type UpstreamUsage = z.infer<typeof upstreamUsageSchema>;

/**
 * The delta of a streamed chunk, also the message of a non-streamed completion. Reasoning is
 * `reasoning_content` (DeepSeek, llama.cpp, older vLLM) or `reasoning` (vLLM, Ollama, OpenRouter).
 */
export const upstreamDeltaSchema = z.looseObject({
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  tool_calls: z.array(toolCallDeltaSchema).nullish(),
});
export type UpstreamDelta = z.infer<typeof upstreamDeltaSchema>;

/** One streamed `chat.completion.chunk`, or a whole `chat.completion` (`message` instead of `delta`). */
export const upstreamChunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        delta: upstreamDeltaSchema.nullish(),
        message: upstreamDeltaSchema.nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: upstreamUsageSchema.nullish(),
});
export type UpstreamChunk = z.infer<typeof upstreamChunkSchema>;

/** An error payload, in the shapes runtimes use: `{error:{message}}`, `{error:"…"}`, `{object:"error", message}`, `{detail}`. */
const nestedErrorSchema = z.looseObject({ error: z.union([z.string(), z.looseObject({ message: z.string().nullish() })]) });
const flatErrorSchema = z.looseObject({ object: z.literal('error'), message: z.string().nullish() });
const detailErrorSchema = z.looseObject({ detail: z.string() });

/**
 * Whether `value` may be an error payload: the only shapes the schemas below can accept. Cheap,
 * so that a normal chunk (every chunk of a stream) never runs them: a failing zod parse builds
 * issue objects.
 */
function mayBeError(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return record.error !== undefined || record.object === 'error' || record.detail !== undefined;
}

/** The message of an upstream error payload, or `undefined` when `value` is not one. */
export function upstreamErrorMessage(value: unknown): string | undefined {
  if (!mayBeError(value)) return undefined;
  const nested = nestedErrorSchema.safeParse(value);
  if (nested.success) {
    const error = nested.data.error;
    return typeof error === 'string' ? error : (error.message ?? 'unknown error');
  }
  const flat = flatErrorSchema.safeParse(value);
  if (flat.success) return flat.data.message ?? 'unknown error';
  const detail = detailErrorSchema.safeParse(value);
  return detail.success ? detail.data.detail : undefined;
}
