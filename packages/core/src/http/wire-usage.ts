import type { EngineUsage } from '../engine/chat-engine.js';
import type { Usage } from '../schemas/usage.js';

/** An engine's token counts as the wire's usage object (decisions §3). */
export function toWireUsage(usage: EngineUsage): Usage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
