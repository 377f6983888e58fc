import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatResetDuration, rateLimitHeaders, retryAfterHeaders } from './rate-limit-headers.js';

describe('formatResetDuration', () => {
  it('should write waits the way OpenAI-style clients parse them', () => {
    expect(formatResetDuration(250)).toBe('250ms');
    expect(formatResetDuration(1000)).toBe('1s');
    expect(formatResetDuration(8640)).toBe('8.64s');
    expect(formatResetDuration(360_000)).toBe('6m0s');
    expect(formatResetDuration(3_723_500)).toBe('1h2m3.5s');
    expect(formatResetDuration(-5)).toBe('0ms');
  });

  it('should write the seconds as toFixed(3) with trailing zeros dropped would, for any wait (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 3 * 86_400_000 }), (ms) => {
        const seconds = ((ms % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, '');
        expect(formatResetDuration(ms)).toMatch(new RegExp(`(^|[hm])${seconds.replace('.', '\\.')}s$`));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('rateLimitHeaders', () => {
  it('should send limit, remaining and reset per limit that applies', () => {
    const now = 1_000_000;
    const headers = rateLimitHeaders(
      {
        requests: { limit: 60, used: 1, remaining: 59, resetsAt: now + 60_000 },
        tokens: { limit: 1000, used: 300, remaining: 700, resetsAt: now + 1500 },
        'daily-tokens': { limit: 5000, used: 300, remaining: 4700, resetsAt: now + 86_400_000 },
      },
      now,
    );
    expect(headers).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1m0s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '700',
      'x-ratelimit-reset-tokens': '1.5s',
      'x-ratelimit-limit-tokens-day': '5000',
      'x-ratelimit-remaining-tokens-day': '4700',
      'x-ratelimit-reset-tokens-day': '24h0m0s',
    });
  });
});

describe('retryAfterHeaders', () => {
  it('should round retry-after up to whole seconds, at least 1', () => {
    expect(retryAfterHeaders(1)).toEqual({ 'retry-after': '1', 'retry-after-ms': '1' });
    expect(retryAfterHeaders(1001)).toEqual({ 'retry-after': '2', 'retry-after-ms': '1001' });
    expect(retryAfterHeaders(0)).toEqual({ 'retry-after': '1', 'retry-after-ms': '1' });
  });
});
