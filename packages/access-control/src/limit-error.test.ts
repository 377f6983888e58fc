import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { LimitDecision } from './create-limiter.js';
import { limitError } from './limit-error.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own check that two objects share one hidden class (its `%HaveSameMap`). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

type Refusal = Extract<LimitDecision, { admitted: false }>;
const resetsAt = Date.now() + 30_000;
const refusal = (exceeded: Refusal['exceeded'], tooLarge = false): Refusal => ({
  admitted: false,
  exceeded,
  retryAfterMs: 1500,
  tooLarge,
  requested: 100,
  state: { requests: { limit: 60, used: 60, remaining: 0, resetsAt }, 'daily-tokens': { limit: 1000, used: 950, remaining: 50, resetsAt } },
});

describe('limitError', () => {
  it('should answer each refusal with its headers: a wait to retry after, or none for the day', () => {
    expect(limitError(refusal('requests'), 'organisation acme').headers).toMatchObject({ 'x-ratelimit-remaining-requests': '0', 'retry-after': '2', 'retry-after-ms': '1500' });
    expect(limitError(refusal('requests', true), 'organisation acme').headers).toMatchObject({ 'retry-after': '2', 'x-should-retry': 'false' });
    const daily = limitError(refusal('daily-tokens'), 'organisation acme');
    expect(daily.code).toBe('insufficient_quota');
    expect(daily.headers).toMatchObject({ 'x-ratelimit-remaining-tokens-day': '50', 'x-should-retry': 'false' });
    expect(daily.headers['retry-after']).toBeUndefined();
  });

  it('should give the headers of every refusal of a kind one hidden class, not one each (a client past its limit is refused again and again)', () => {
    for (const [exceeded, tooLarge] of [['requests', false], ['requests', true], ['daily-tokens', false]] as const) {
      // Past the first few, V8 builds such objects through its fast paths, where the shape goes wrong.
      const all = Array.from({ length: 40 }, () => limitError(refusal(exceeded, tooLarge), 'organisation acme').headers);
      expect(all.slice(-30).filter((headers) => !sameHiddenClass(headers, all.at(-1)!))).toHaveLength(0);
    }
  });
});
