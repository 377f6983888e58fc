import type { EngineUsage } from '@quantum-chat/core';
import type { WireUsage } from '@quantum-chat/core/dialect';

type Details = Pick<EngineUsage, 'cachedPromptTokens' | 'promptAudioTokens' | 'acceptedPredictionTokens' | 'rejectedPredictionTokens' | 'completionAudioTokens'>;

/** A count in `details[field]` that fits within `ceiling`, or `undefined`: a detail is never more than its whole. */
function countIn(details: unknown, field: string, ceiling: number): number | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const value = (details as Record<string, unknown>)[field];
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= ceiling ? value : undefined;
}

/**
 * The charged usage with the details the upstream reported in OpenAI's fields (decisions §3):
 * `prompt_tokens_details.cached_tokens` and `audio_tokens`, and in `completion_tokens_details`
 * the prediction and audio counts (its `reasoning_tokens` are checked apart, as part of the
 * charge). Each is passed on only when it is a whole number within the count it details, as
 * charged (after `checkUpstreamUsage`): a hostile upstream cannot make a cached count exceed
 * the prompt.
 *
 * @example
 * withReportedDetails({ promptTokens: 2006, completionTokens: 8, reasoningTokens: 0 }, { prompt_tokens_details: { cached_tokens: 1920 } });
 * // { promptTokens: 2006, completionTokens: 8, reasoningTokens: 0, cachedPromptTokens: 1920 }
 */
export function withReportedDetails(usage: EngineUsage, reported: WireUsage | undefined): EngineUsage {
  if (reported === undefined) return usage;
  const prompt = reported.prompt_tokens_details;
  const completion = reported.completion_tokens_details;
  if ((prompt === undefined || prompt === null) && (completion === undefined || completion === null)) return usage;
  const details: Details = {};
  const cached = countIn(prompt, 'cached_tokens', usage.promptTokens);
  if (cached !== undefined) details.cachedPromptTokens = cached;
  const promptAudio = countIn(prompt, 'audio_tokens', usage.promptTokens);
  if (promptAudio !== undefined) details.promptAudioTokens = promptAudio;
  const accepted = countIn(completion, 'accepted_prediction_tokens', usage.completionTokens);
  if (accepted !== undefined) details.acceptedPredictionTokens = accepted;
  const rejected = countIn(completion, 'rejected_prediction_tokens', usage.completionTokens);
  if (rejected !== undefined) details.rejectedPredictionTokens = rejected;
  const completionAudio = countIn(completion, 'audio_tokens', usage.completionTokens);
  if (completionAudio !== undefined) details.completionAudioTokens = completionAudio;
  // Not `{ ...usage, ...details }`: on Node 20 a literal that starts with a spread gets a hidden class per request.
  return Object.assign({}, usage, details);
}
