import { describe, expect, it } from 'vitest';
import { buildUsageSeries, daysBetween, formatTokens, niceScale } from './usage-series.js';

const row = (day: string, model: string, total: number, requests = 1) => ({ day, model, requests, prompt_tokens: total - 1, completion_tokens: 1, total_tokens: total });

describe('buildUsageSeries', () => {
  it('should give every day of the range (empty ones as 0) and every model, the largest first', () => {
    const series = buildUsageSeries(
      [row('2030-01-02', 'quantum-lite', 10), row('2030-01-02', 'quantum-flash', 300), row('2030-01-04', 'quantum-lite', 5), row('2030-01-04', 'quantum-lite', 7, 2)],
      '2030-01-01',
      '2030-01-04',
    );
    expect(series.days).toEqual(['2030-01-01', '2030-01-02', '2030-01-03', '2030-01-04']);
    expect(series.models).toEqual(['quantum-flash', 'quantum-lite']);
    expect(series.tokens).toEqual([
      [0, 300, 0, 0],
      [0, 10, 0, 12],
    ]);
    expect(series.dayTotals).toEqual([0, 310, 0, 12]);
    expect(series.totals).toEqual([
      { model: 'quantum-flash', requests: 1, promptTokens: 299, completionTokens: 1, totalTokens: 300 },
      { model: 'quantum-lite', requests: 4, promptTokens: 19, completionTokens: 3, totalTokens: 22 },
    ]);
  });

  it('should ignore rows outside the range', () => {
    expect(buildUsageSeries([row('2029-12-31', 'quantum-lite', 10)], '2030-01-01', '2030-01-02').models).toEqual([]);
  });
});

describe('daysBetween', () => {
  it('should list UTC days, both ends included, across month ends', () => {
    expect(daysBetween('2030-01-30', '2030-02-02')).toEqual(['2030-01-30', '2030-01-31', '2030-02-01', '2030-02-02']);
    expect(daysBetween('2030-01-02', '2030-01-01')).toEqual([]);
  });
});

describe('niceScale', () => {
  it('should end the axis on a round number above the largest value, with round steps', () => {
    expect(niceScale(0)).toEqual({ max: 10, ticks: [0, 2, 4, 6, 8, 10] });
    expect(niceScale(7)).toEqual({ max: 8, ticks: [0, 2, 4, 6, 8] });
    expect(niceScale(1234)).toEqual({ max: 1500, ticks: [0, 500, 1000, 1500] });
    expect(niceScale(98_000).max).toBe(100_000);
    expect(niceScale(98_000).ticks).toHaveLength(6);
  });
});

describe('formatTokens', () => {
  it('should shorten large counts', () => {
    expect(formatTokens(950)).toBe('950');
    expect(formatTokens(12_300)).toBe('12.3k');
    expect(formatTokens(2_000_000)).toBe('2M');
    expect(formatTokens(1_250_000)).toBe('1.25M');
  });
});
