import type { EngineUsage } from '../../engine/chat-engine.js';
import type { ResponseUsage } from '../../schemas/responses/response-object.js';

/** An engine's token counts in the Responses API's names; cached tokens are 0 when the model did not say. */
export function toResponseUsage(usage: EngineUsage): ResponseUsage {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedPromptTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}
