import type { Usage } from '../schemas/usage.js';

/**
 * The token counts the wire's usage object is made of: an engine's `EngineUsage` is one (the
 * wire sits below the engine interface, so it names the shape rather than importing it).
 */
export interface UsageCounts {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  cachedPromptTokens?: number | undefined;
  promptAudioTokens?: number | undefined;
  acceptedPredictionTokens?: number | undefined;
  rejectedPredictionTokens?: number | undefined;
  completionAudioTokens?: number | undefined;
}

/**
 * An engine's token counts as the wire's usage object (decisions §3), with the details a model
 * reported in OpenAI's fields, in OpenAI's order, only those it reported.
 */
export function toWireUsage(usage: UsageCounts): Usage {
  const wire: Usage = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedPromptTokens !== undefined || usage.promptAudioTokens !== undefined) {
    // Filled in place: on Node 20 a literal that starts with a spread gets a hidden class per answer.
    const details: NonNullable<Usage['prompt_tokens_details']> = {};
    if (usage.cachedPromptTokens !== undefined) details.cached_tokens = usage.cachedPromptTokens;
    if (usage.promptAudioTokens !== undefined) details.audio_tokens = usage.promptAudioTokens;
    wire.prompt_tokens_details = details;
  }
  wire.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  if (usage.acceptedPredictionTokens !== undefined) wire.completion_tokens_details.accepted_prediction_tokens = usage.acceptedPredictionTokens;
  if (usage.rejectedPredictionTokens !== undefined) wire.completion_tokens_details.rejected_prediction_tokens = usage.rejectedPredictionTokens;
  if (usage.completionAudioTokens !== undefined) wire.completion_tokens_details.audio_tokens = usage.completionAudioTokens;
  return wire;
}
