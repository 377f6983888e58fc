import type { Limits } from './plan-limits.js';

/** The three limits of decisions §6: requests/min, tokens/min and tokens/day. */
export type LimitDimension = 'requests' | 'tokens' | 'daily-tokens';

/** Where one limit stands after a request. */
export interface LimitReading {
  limit: number;
  /** Counted in the current window, this request's reservation included. */
  used: number;
  remaining: number;
  /** When the window ends, in ms since the epoch. */
  resetsAt: number;
}

/** The readings of the limits that apply (a lifted limit has none). */
export type LimitState = Partial<Record<LimitDimension, LimitReading>>;

/** Window lengths in seconds. */
export const windowSeconds: Record<LimitDimension, number> = { requests: 60, tokens: 60, 'daily-tokens': 86_400 };

/** What a request asks of one limit. @internal */
export interface LimitDemand {
  dimension: LimitDimension;
  limit: number;
  points: number;
}

/** The demands of a request on the limits that apply: one request, and its reserved tokens twice. @internal */
export function demandsOf(limits: Limits, tokens: number): LimitDemand[] {
  const demands: LimitDemand[] = [];
  if (limits.requestsPerMinute !== null) demands.push({ dimension: 'requests', limit: limits.requestsPerMinute, points: 1 });
  if (limits.tokensPerMinute !== null) demands.push({ dimension: 'tokens', limit: limits.tokensPerMinute, points: tokens });
  if (limits.tokensPerDay !== null) demands.push({ dimension: 'daily-tokens', limit: limits.tokensPerDay, points: tokens });
  return demands;
}

/** @internal */
export function toReading(limit: number, used: number, resetsAt: number): LimitReading {
  return { limit, used, remaining: Math.max(0, limit - used), resetsAt };
}
