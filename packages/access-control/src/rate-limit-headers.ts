import type { LimitDimension, LimitState } from './limit-state.js';

/**
 * A wait in the style OpenAI's `x-ratelimit-reset-*` headers use: `250ms`, `1s`, `6m0s`,
 * `1h2m3.5s` (Go's duration format, which OpenAI-style clients parse).
 *
 * @example
 * formatResetDuration(360_000) // '6m0s'
 */
export function formatResetDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = decimalSeconds(total % 60_000);
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** Up to three decimals, trailing zeros dropped (`59.12`, `3`), without `toFixed` and a RegExp: every answer sends three of these. */
function decimalSeconds(ms: number): string {
  const whole = Math.floor(ms / 1000);
  let fraction = ms % 1000;
  if (fraction === 0) return String(whole);
  let digits = 3;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  return `${whole}.${String(fraction).padStart(digits, '0')}`;
}

/** Each dimension's three header names, made once rather than per answer. */
const headerNames: Record<LimitDimension, { limit: string; remaining: string; reset: string }> = {
  requests: namesOf('requests'),
  tokens: namesOf('tokens'),
  'daily-tokens': namesOf('tokens-day'),
};

function namesOf(suffix: string): { limit: string; remaining: string; reset: string } {
  return { limit: `x-ratelimit-limit-${suffix}`, remaining: `x-ratelimit-remaining-${suffix}`, reset: `x-ratelimit-reset-${suffix}` };
}

/**
 * The `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` headers of decisions §5, plus
 * `…-tokens-day` when the organisation has a daily cap. A lifted limit sends none.
 *
 * @example
 * rateLimitHeaders(decision.state) // { 'x-ratelimit-limit-requests': '60', ... }
 */
export function rateLimitHeaders(state: LimitState, now: number = Date.now()): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const dimension in state) {
    const reading = state[dimension as LimitDimension]!;
    const names = headerNames[dimension as LimitDimension];
    headers[names.limit] = String(reading.limit);
    headers[names.remaining] = String(reading.remaining);
    headers[names.reset] = formatResetDuration(reading.resetsAt - now);
  }
  return headers;
}

/**
 * `retry-after` (whole seconds, at least 1) and `retry-after-ms` (decisions §5).
 *
 * @example
 * retryAfterHeaders(1500) // { 'retry-after': '2', 'retry-after-ms': '1500' }
 */
export function retryAfterHeaders(ms: number): Record<string, string> {
  const wait = Math.max(1, Math.ceil(ms));
  return { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))), 'retry-after-ms': String(wait) };
}
