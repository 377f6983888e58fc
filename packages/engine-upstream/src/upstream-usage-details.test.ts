import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { withReportedDetails } from './upstream-usage-details.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own check that two objects share one hidden class (its `%HaveSameMap`). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

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

  it('should give every request\'s usage one hidden class, not one each (OpenAI reports details with every answer)', () => {
    const reported = { prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 } };
    // Past the first few, V8 builds such objects through its fast paths, where the shape goes wrong.
    const all = Array.from({ length: 40 }, (_, index) => withReportedDetails({ ...charged, completionTokens: index }, reported));
    expect(all.slice(-30).filter((usage) => !sameHiddenClass(usage, all.at(-1)!))).toHaveLength(0);
  });
});
