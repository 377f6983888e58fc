import { describe, expect, it } from 'vitest';
import { defaultPlanLimits, resolveLimits } from './plan-limits.js';

describe('resolveLimits', () => {
  it('should give the plan defaults of decisions §6', () => {
    expect(resolveLimits('free')).toEqual({ requestsPerMinute: 60, tokensPerMinute: 100_000, tokensPerDay: 1_000_000 });
    expect(resolveLimits('elite')).toEqual({ requestsPerMinute: 600, tokensPerMinute: 2_000_000, tokensPerDay: null });
  });

  it('should apply overrides: a number replaces, null lifts, absent keeps the default', () => {
    expect(resolveLimits('free', { requestsPerMinute: 5, tokensPerDay: null })).toEqual({ requestsPerMinute: 5, tokensPerMinute: 100_000, tokensPerDay: null });
    expect(resolveLimits('elite', { tokensPerDay: 10 })).toMatchObject({ tokensPerDay: 10 });
  });

  it('should take other plan defaults when given', () => {
    const planLimits = { ...defaultPlanLimits, free: { requestsPerMinute: 1, tokensPerMinute: 2, tokensPerDay: 3 } };
    expect(resolveLimits('free', {}, planLimits)).toEqual({ requestsPerMinute: 1, tokensPerMinute: 2, tokensPerDay: 3 });
  });
});
