import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { toWireUsage } from './wire-usage.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own check that two objects share one hidden class (its `%HaveSameMap`). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

describe('toWireUsage', () => {
  it('should write the details reported, in OpenAI\'s order, and only those', () => {
    expect(toWireUsage({ promptTokens: 10, completionTokens: 4, reasoningTokens: 1 })).toEqual({
      prompt_tokens: 10,
      completion_tokens: 4,
      total_tokens: 14,
      completion_tokens_details: { reasoning_tokens: 1 },
    });
    const detailed = toWireUsage({ promptTokens: 10, completionTokens: 4, reasoningTokens: 1, cachedPromptTokens: 8, promptAudioTokens: 0, completionAudioTokens: 2 });
    expect(JSON.stringify(detailed)).toBe(
      '{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14,"prompt_tokens_details":{"cached_tokens":8,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":1,"audio_tokens":2}}',
    );
    expect(toWireUsage({ promptTokens: 10, completionTokens: 4, reasoningTokens: 0, promptAudioTokens: 3 }).prompt_tokens_details).toEqual({ audio_tokens: 3 });
  });

  it('should give the prompt details of every answer one hidden class, not one each', () => {
    // Past the first few, V8 builds such objects through its fast paths, where the shape goes wrong.
    const all = Array.from({ length: 40 }, (_, index) => toWireUsage({ promptTokens: 10 + index, completionTokens: 4, reasoningTokens: 0, cachedPromptTokens: index, promptAudioTokens: 0 }).prompt_tokens_details!);
    expect(all.slice(-30).filter((details) => !sameHiddenClass(details, all.at(-1)!))).toHaveLength(0);
  });
});
