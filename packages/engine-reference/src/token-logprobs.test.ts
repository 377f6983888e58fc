import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createSeedSource } from './seeded-random.js';
import { scoreTokens } from './token-logprobs.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own check that two objects share one hidden class (its `%HaveSameMap`). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

describe('scoreTokens', () => {
  it('should score each token with its bytes and its runners-up, the chosen one among them, most likely first', () => {
    const [hello] = scoreTokens(['Hello', '!'], createSeedSource('seed'), 3);
    expect(hello).toMatchObject({ token: 'Hello', bytes: [72, 101, 108, 108, 111] });
    expect(hello!.top_logprobs).toHaveLength(3);
    expect(hello!.top_logprobs.map((entry) => entry.logprob)).toEqual([...hello!.top_logprobs.map((entry) => entry.logprob)].sort((a, b) => b - a));
    expect(hello!.top_logprobs.find((entry) => entry.token === 'Hello')).toEqual({ token: 'Hello', logprob: hello!.logprob, bytes: hello!.bytes });
  });

  it('should give every token\'s entry one hidden class, not one each (one entry a token streamed)', () => {
    // Past the first few, V8 builds such objects through its fast paths, where the shape goes wrong.
    const scores = scoreTokens(Array.from({ length: 40 }, (_, index) => ` word${index}`), createSeedSource('seed'), 2);
    expect(scores.slice(-30).filter((score) => !sameHiddenClass(score, scores.at(-1)!))).toHaveLength(0);
  });
});
