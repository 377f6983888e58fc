import { QuantumChatError } from '@quantum-chat/core';
import type { LimitDecision } from './create-limiter.js';
import type { LimitDimension } from './limit-state.js';
import { formatResetDuration, rateLimitHeaders, retryAfterHeaders } from './rate-limit-headers.js';

const names: Record<LimitDimension, string> = { requests: 'requests per minute', tokens: 'tokens per minute', 'daily-tokens': 'tokens per day' };

/**
 * The 429 for a refused reservation (decisions §5): `insufficient_quota` with
 * `x-should-retry: false` when the day's tokens cannot cover it, else `rate_limit_exceeded`
 * with `retry-after` and `retry-after-ms`. Both carry the `x-ratelimit-*` headers.
 *
 * @internal
 */
export function limitError(decision: Extract<LimitDecision, { admitted: false }>, scope: string): QuantumChatError {
  const reading = decision.state[decision.exceeded]!;
  // Added to in place (a fresh object): on Node 20 `{ ...headers, … }` gets a hidden class per refusal.
  const headers = rateLimitHeaders(decision.state);
  const name = names[decision.exceeded];
  if (decision.exceeded === 'daily-tokens') {
    return new QuantumChatError(
      'insufficient_quota',
      `You exceeded your daily token quota (${scope}): ${reading.remaining} of ${reading.limit} tokens left today, and this request reserves ${decision.requested} (prompt + max_tokens). Lower max_tokens, or wait ${formatResetDuration(reading.resetsAt - Date.now())} for the quota to reset.`,
      { headers: Object.assign(headers, { 'x-should-retry': 'false' }) },
    );
  }
  Object.assign(headers, retryAfterHeaders(decision.retryAfterMs));
  if (decision.tooLarge) {
    return new QuantumChatError(
      'rate_limit_exceeded',
      `Request too large for ${name} (${scope}): limit ${reading.limit}, requested ${decision.requested} (prompt + max_tokens). Lower max_tokens or shorten the messages.`,
      { headers: Object.assign(headers, { 'x-should-retry': 'false' }) },
    );
  }
  return new QuantumChatError(
    'rate_limit_exceeded',
    `Rate limit reached for ${name} (${scope}): limit ${reading.limit}, used ${reading.used}, requested ${decision.requested}. Please try again in ${formatResetDuration(decision.retryAfterMs)}.`,
    { headers },
  );
}
