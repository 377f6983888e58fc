import type { Plan } from '@quantum-chat/core';

/**
 * The limits of an organisation. `null` means no limit in that dimension (the `elite` plan
 * has no daily cap).
 */
export interface Limits {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  tokensPerDay: number | null;
}

/**
 * Per-organisation overrides of the plan's limits: a missing field keeps the plan default,
 * `null` lifts the limit, a number replaces it.
 */
export type LimitOverrides = Partial<Limits>;

/** The default limits of every plan (decisions §6). */
export type PlanLimits = Record<Plan, Limits>;

/**
 * The plan defaults of decisions §6: `free` 60 req/min, 100,000 tokens/min, 1,000,000
 * tokens/day; `elite` 600 req/min, 2,000,000 tokens/min, no daily cap.
 */
export const defaultPlanLimits: PlanLimits = {
  free: { requestsPerMinute: 60, tokensPerMinute: 100_000, tokensPerDay: 1_000_000 },
  elite: { requestsPerMinute: 600, tokensPerMinute: 2_000_000, tokensPerDay: null },
};

/**
 * The limits that apply to an organisation: its overrides over its plan's defaults.
 *
 * @example
 * resolveLimits('free', { tokensPerDay: null }) // { requestsPerMinute: 60, tokensPerMinute: 100000, tokensPerDay: null }
 */
export function resolveLimits(plan: Plan, overrides: LimitOverrides = {}, planLimits: PlanLimits = defaultPlanLimits): Limits {
  const defaults = planLimits[plan];
  return {
    requestsPerMinute: overrides.requestsPerMinute !== undefined ? overrides.requestsPerMinute : defaults.requestsPerMinute,
    tokensPerMinute: overrides.tokensPerMinute !== undefined ? overrides.tokensPerMinute : defaults.tokensPerMinute,
    tokensPerDay: overrides.tokensPerDay !== undefined ? overrides.tokensPerDay : defaults.tokensPerDay,
  };
}
