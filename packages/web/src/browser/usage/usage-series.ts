// Usage rows of the admin API as the chart draws them: tokens per model per day.

/** What the chart reads of a row of `GET /admin/v1/usage`. */
export interface UsageRow {
  day: string;
  model: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

interface ModelTotals {
  model: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Tokens per model (rows, largest first) per day (columns, every day of the range). */
export interface UsageSeries {
  days: string[];
  models: string[];
  /** `tokens[model][day]`. */
  tokens: number[][];
  /** Each day's tokens, all models together. */
  dayTotals: number[];
  totals: ModelTotals[];
}

const dayMs = 86_400_000;

/** Every UTC day from `since` to `until`, both included (`YYYY-MM-DD`). */
export function daysBetween(since: string, until: string): string[] {
  const days: string[] = [];
  for (let time = Date.parse(`${since}T00:00:00Z`); time <= Date.parse(`${until}T00:00:00Z`); time += dayMs) days.push(new Date(time).toISOString().slice(0, 10));
  return days;
}

/**
 * Sums the rows (one per day, organisation, key and model) into tokens per model per day over
 * the whole range, empty days included; models by total tokens, the largest first.
 *
 * @example
 * buildUsageSeries(report.data, report.since, report.until).tokens[0] // the biggest model, day by day
 */
export function buildUsageSeries(rows: readonly UsageRow[], since: string, until: string): UsageSeries {
  const days = daysBetween(since, until);
  const dayIndex = new Map(days.map((day, index) => [day, index]));
  const byModel = new Map<string, { tokens: number[]; totals: ModelTotals }>();
  for (const row of rows) {
    const index = dayIndex.get(row.day);
    if (index === undefined) continue;
    let entry = byModel.get(row.model);
    if (entry === undefined) {
      entry = { tokens: days.map(() => 0), totals: { model: row.model, requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
      byModel.set(row.model, entry);
    }
    entry.tokens[index]! += row.total_tokens;
    entry.totals.requests += row.requests;
    entry.totals.promptTokens += row.prompt_tokens;
    entry.totals.completionTokens += row.completion_tokens;
    entry.totals.totalTokens += row.total_tokens;
  }
  const entries = [...byModel.values()].sort((a, b) => b.totals.totalTokens - a.totals.totalTokens || (a.totals.model < b.totals.model ? -1 : 1));
  return {
    days,
    models: entries.map((entry) => entry.totals.model),
    tokens: entries.map((entry) => entry.tokens),
    dayTotals: days.map((_, index) => entries.reduce((total, entry) => total + entry.tokens[index]!, 0)),
    totals: entries.map((entry) => entry.totals),
  };
}

/**
 * An axis from 0 to a round number at or above `value`, in 3 to 6 round steps (1, 2 or 5
 * times a power of ten).
 */
export function niceScale(value: number): { max: number; ticks: number[] } {
  if (!(value > 0)) return { max: 10, ticks: [0, 2, 4, 6, 8, 10] };
  const rough = value / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough)!;
  const max = Math.ceil(value / step) * step;
  const ticks: number[] = [];
  for (let tick = 0; tick <= max + step / 2; tick += step) ticks.push(Math.round(tick));
  return { max, ticks };
}

/** `950`, `12.3k`, `1.25M`. */
export function formatTokens(value: number): string {
  const trim = (text: string) => text.replace(/\.?0+$/u, '');
  if (value >= 1_000_000) return `${trim((value / 1_000_000).toFixed(2))}M`;
  if (value >= 10_000) return `${trim((value / 1000).toFixed(1))}k`;
  return String(value);
}
