import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createLimiter, type LimitDecision } from './create-limiter.js';
import type { Limits } from './plan-limits.js';

const limits: Limits = { requestsPerMinute: 3, tokensPerMinute: 1000, tokensPerDay: 5000 };

function admitted(decision: LimitDecision): Extract<LimitDecision, { admitted: true }> {
  if (!decision.admitted) throw new Error(`refused: ${decision.exceeded}`);
  return decision;
}

describe('createLimiter (memory)', () => {
  it('should admit up to the requests per minute, then refuse with a wait', async () => {
    const limiter = createLimiter();
    for (let index = 0; index < 3; index++) expect((await limiter.reserve('acme:live', limits, 10)).admitted).toBe(true);
    const refused = await limiter.reserve('acme:live', limits, 10);
    expect(refused).toMatchObject({ admitted: false, exceeded: 'requests', tooLarge: false });
    if (refused.admitted) return;
    expect(refused.retryAfterMs).toBeGreaterThan(59_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(refused.state.requests).toMatchObject({ limit: 3, used: 3, remaining: 0 });
  });

  it('should count nothing for a refused request', async () => {
    const limiter = createLimiter();
    await limiter.reserve('acme:live', limits, 900);
    expect((await limiter.reserve('acme:live', limits, 200)).admitted).toBe(false);
    expect(await limiter.read('acme:live', limits)).toMatchObject({ requests: { used: 1 }, tokens: { used: 900 }, 'daily-tokens': { used: 900 } });
  });

  it('should keep buckets apart', async () => {
    const limiter = createLimiter();
    for (let index = 0; index < 3; index++) await limiter.reserve('acme:test', limits, 1);
    expect((await limiter.reserve('acme:test', limits, 1)).admitted).toBe(false);
    expect((await limiter.reserve('acme:live', limits, 1)).admitted).toBe(true);
  });

  it('should report the state after the reservation', async () => {
    const limiter = createLimiter();
    const decision = admitted(await limiter.reserve('acme:live', limits, 400));
    expect(decision.state).toMatchObject({
      requests: { limit: 3, used: 1, remaining: 2 },
      tokens: { limit: 1000, used: 400, remaining: 600 },
      'daily-tokens': { limit: 5000, used: 400, remaining: 4600 },
    });
  });

  it('should credit unused reserved tokens back on settle, once', async () => {
    const limiter = createLimiter();
    const decision = admitted(await limiter.reserve('acme:live', limits, 900));
    await decision.settle(120);
    await decision.settle(0);
    expect(await limiter.read('acme:live', limits)).toMatchObject({ tokens: { used: 120 }, 'daily-tokens': { used: 120 }, requests: { used: 1 } });
    expect((await limiter.reserve('acme:live', limits, 880)).admitted).toBe(true);
  });

  it('should charge tokens beyond the reservation on settle', async () => {
    const limiter = createLimiter();
    await admitted(await limiter.reserve('acme:live', limits, 100)).settle(150);
    expect((await limiter.read('acme:live', limits)).tokens?.used).toBe(150);
  });

  it('should refuse with daily-tokens when the day cannot cover the reservation', async () => {
    const limiter = createLimiter();
    const wide: Limits = { requestsPerMinute: null, tokensPerMinute: null, tokensPerDay: 1000 };
    await admitted(await limiter.reserve('acme:live', wide, 800)).settle(800);
    const refused = await limiter.reserve('acme:live', wide, 300);
    expect(refused).toMatchObject({ admitted: false, exceeded: 'daily-tokens', requested: 300 });
    expect(refused.state['daily-tokens']).toMatchObject({ used: 800, remaining: 200 });
  });

  it('should prefer daily-tokens over a per-minute refusal', async () => {
    const limiter = createLimiter();
    const tight: Limits = { requestsPerMinute: 10, tokensPerMinute: 100, tokensPerDay: 100 };
    expect(await limiter.reserve('acme:live', tight, 150)).toMatchObject({ admitted: false, exceeded: 'daily-tokens', tooLarge: true });
  });

  it('should mark a request larger than the limit itself as too large', async () => {
    const limiter = createLimiter();
    expect(await limiter.reserve('acme:live', limits, 1001)).toMatchObject({ admitted: false, exceeded: 'tokens', tooLarge: true, requested: 1001 });
  });

  it('should count nothing and send no state for lifted limits', async () => {
    const limiter = createLimiter();
    const decision = admitted(await limiter.reserve('acme:live', { requestsPerMinute: 1, tokensPerMinute: null, tokensPerDay: null }, 1_000_000));
    expect(Object.keys(decision.state)).toEqual(['requests']);
  });

  it('should never admit more than the limit under concurrency', async () => {
    const limiter = createLimiter();
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.reserve('acme:live', { ...limits, requestsPerMinute: 7 }, 1)));
    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(7);
  });

  it('should take a new limit at once, keeping the count', async () => {
    const limiter = createLimiter();
    await limiter.reserve('acme:live', limits, 1);
    await limiter.reserve('acme:live', limits, 1);
    expect((await limiter.reserve('acme:live', { ...limits, requestsPerMinute: 2 }, 1)).admitted).toBe(false);
    expect((await limiter.reserve('acme:live', { ...limits, requestsPerMinute: 10 }, 1)).admitted).toBe(true);
  });

  it('should be ready at once and report its backend', async () => {
    const limiter = createLimiter();
    expect(limiter.backend).toBe('memory');
    expect(await limiter.ready()).toBe(true);
    await limiter.close();
  });

  it('should answer reserveNow at once (no promise) with what reserve answers, and readNow with what read answers', async () => {
    const limiter = createLimiter();
    expect(limiter.reserveNow).toBeTypeOf('function');
    const now = limiter.reserveNow!('acme:live', limits, 400);
    expect(now).not.toBeInstanceOf(Promise);
    expect(admitted(now).state.tokens).toMatchObject({ used: 400, remaining: 600 });
    expect(limiter.readNow!('acme:live', limits)).toEqual(await limiter.read('acme:live', limits));
    expect(limiter.reserveNow!('acme:live', limits, 700)).toMatchObject({ admitted: false, exceeded: 'tokens', requested: 700 });
    expect(await limiter.reserve('acme:live', limits, 700)).toMatchObject({ admitted: false, exceeded: 'tokens', requested: 700 });
  });

  it('should keep limits exact through any sequence of reservations, settles and cancels (property)', async () => {
    type Step = { kind: 'reserve'; tokens: number; now: boolean } | { kind: 'settle'; which: number; used: number } | { kind: 'cancel'; which: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('reserve' as const), tokens: fc.integer({ min: 0, max: 700 }), now: fc.boolean() }),
      fc.record({ kind: fc.constant('settle' as const), which: fc.nat(), used: fc.integer({ min: 0, max: 900 }) }),
      fc.record({ kind: fc.constant('cancel' as const), which: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const limiter = createLimiter();
        const bound: Limits = { requestsPerMinute: 12, tokensPerMinute: 2000, tokensPerDay: 3000 };
        // The model: what each window holds, and the open reservations.
        const counted = { requests: 0, tokens: 0, daily: 0 };
        const open: Array<{ decision: Extract<LimitDecision, { admitted: true }>; tokens: number }> = [];
        for (const next of steps) {
          if (next.kind === 'reserve') {
            const fits = counted.requests + 1 <= 12 && counted.tokens + next.tokens <= 2000 && counted.daily + next.tokens <= 3000;
            const decision = next.now ? limiter.reserveNow!('acme:live', bound, next.tokens) : await limiter.reserve('acme:live', bound, next.tokens);
            expect(decision.admitted).toBe(fits);
            if (decision.admitted) {
              counted.requests += 1;
              counted.tokens += next.tokens;
              counted.daily += next.tokens;
              open.push({ decision, tokens: next.tokens });
            }
          } else if (open.length > 0) {
            const [entry] = open.splice(next.which % open.length, 1);
            if (next.kind === 'settle') {
              await entry!.decision.settle(next.used);
              counted.tokens += next.used - entry!.tokens;
              counted.daily += next.used - entry!.tokens;
            } else {
              await entry!.decision.cancel();
              counted.requests -= 1;
              counted.tokens -= entry!.tokens;
              counted.daily -= entry!.tokens;
            }
          }
          const state = limiter.readNow!('acme:live', bound);
          expect([state.requests!.used, state.tokens!.used, state['daily-tokens']!.used]).toEqual([counted.requests, counted.tokens, counted.daily]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('should start a new window once one ends', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    try {
      const limiter = createLimiter();
      const perMinute: Limits = { requestsPerMinute: 1, tokensPerMinute: null, tokensPerDay: null };
      expect(limiter.reserveNow!('acme:live', perMinute, 0).admitted).toBe(true);
      expect(limiter.reserveNow!('acme:live', perMinute, 0).admitted).toBe(false);
      const charged = admitted(limiter.reserveNow!('acme:test', perMinute, 0));
      vi.setSystemTime(Date.UTC(2026, 0, 1, 0, 1));
      // A refund after its window ended gives nothing to the new one.
      await charged.cancel();
      expect(limiter.reserveNow!('acme:live', perMinute, 0).admitted).toBe(true);
      expect(limiter.reserveNow!('acme:test', perMinute, 0).admitted).toBe(true);
      expect(limiter.reserveNow!('acme:test', perMinute, 0).admitted).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
