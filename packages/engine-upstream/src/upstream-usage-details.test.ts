import { describe, expect, it } from 'vitest';
import { withReportedDetails } from './upstream-usage-details.js';

const charged = { promptTokens: 2006, completionTokens: 8, reasoningTokens: 0 };

describe('withReportedDetails', () => {
  it('should add the details an upstream reported in OpenAI\'s fields', () => {
    const reported = {
      prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, accepted_prediction_tokens: 3, rejected_prediction_tokens: 1, audio_tokens: 2 },
    };
    expect(withReportedDetails(charged, reported)).toEqual({
      ...charged,
      cachedPromptTokens: 1920,
      promptAudioTokens: 0,
      acceptedPredictionTokens: 3,
      rejectedPredictionTokens: 1,
      completionAudioTokens: 2,
    });
  });

  it('should leave out a detail that is not a whole count within what it details, and keep the charge as it is', () => {
    const reported = {
      prompt_tokens_details: { cached_tokens: 2007, audio_tokens: -1 },
      completion_tokens_details: { accepted_prediction_tokens: 2.5, rejected_prediction_tokens: '1', audio_tokens: 9 },
    };
    expect(withReportedDetails(charged, reported)).toEqual(charged);
    expect(withReportedDetails(charged, { prompt_tokens_details: 'many' as unknown as null })).toEqual(charged);
    expect(withReportedDetails(charged, undefined)).toBe(charged);
    expect(withReportedDetails(charged, { prompt_tokens: 2006 })).toBe(charged);
  });
});
