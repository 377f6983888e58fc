import {
  countPromptAtOnceBelow,
  QuantumChatError,
  type AccessControl,
  type Admission,
  type AdmissionDemand,
  type AdmissionOutcome,
  type Principal,
} from '@quantum-chat/core';
import { createLimiter, type LimitDecision, type Limiter } from './create-limiter.js';
import { createDailyQuota, type DailyDecision, type DailyQuota } from './daily-quota.js';
import { hashApiKey } from './hash-api-key.js';
import { createKeyCache } from './key-cache.js';
import type { ServiceStore } from './service-store/index.js';
import { limitError } from './limit-error.js';
import { toReading, type LimitDimension, type LimitReading, type LimitState } from './limit-state.js';
import { defaultPlanLimits, resolveLimits, type LimitOverrides, type Limits, type PlanLimits } from './plan-limits.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import { timeOrderedUsageId } from './usage-id.js';
import { createUsageLedger, type UsageLedger, type UsageLedgerOptions } from './usage-ledger.js';

export interface AccessControlOptions {
  store: ServiceStore;
  /** In memory by default; pass `createLimiter({ redis })` to share per-minute limits between instances. */
  limiter?: Limiter;
  /** The defaults of each plan (decisions §6); an organisation's overrides apply on top. */
  planDefaults?: PlanLimits;
  /** How long a looked-up key is trusted before the store is asked again; 1000 ms by default. */
  keyCacheTtlMs?: number;
  /** The most a key lookup waits on the store before 503 `store_unavailable` (cached keys keep working); 1000 ms by default. */
  storeTimeoutMs?: number;
  /** The most a request waits on the store for its daily reservation before counting in this process; 250 ms by default. */
  dailyTimeoutMs?: number;
  /** When the store cannot count the day's tokens: false (default) counts in this process; true answers 503. */
  failClosed?: boolean;
  /** How usage rows are written (durable or buffered, commit timeout, progress interval, buffer bound, when a dead instance's rows are settled). */
  usage?: Omit<UsageLedgerOptions, 'store'>;
  /** ms since the epoch, for key expiry and usage times; injected so that tests control time. `Date.now` by default. */
  now?: () => number;
  /** Reporting only: failures to credit tokens back, and the like. */
  onError?: (error: unknown) => void;
  /** Reporting only: the store stopped or started answering (`what`: key lookups or daily counts). */
  onStoreStateChange?: (available: boolean, what: 'keys' | 'daily', reason: unknown) => void;
}

/** The access control of the store-backed server: `AccessControl` plus what operators need. */
export interface StoreAccessControl extends AccessControl {
  authenticate: AccessControl['authenticate'];
  admit(principal: Principal, demand: AdmissionDemand): Promise<Admission>;
  admitRequest(principal: Principal): Promise<{ headers: Record<string, string> }>;
  /** The limits of a principal's organisation, after its overrides. */
  limitsOf(principal: Principal): Limits;
  /** The limit bucket of a principal: test keys count apart from live ones (decisions §6). */
  bucketOf(principal: Principal): string;
  readonly limiter: Limiter;
  readonly ledger: UsageLedger;
  /** Writes pending usage and stops the timers; the store and limiter stay open (their owner closes them). */
  close(): Promise<void>;
}

interface KeyContext {
  keyId: string;
  limits: Limits;
  /** The key's own limits (a bucket of its own, within the organisation's); undefined: none. */
  keyLimits: Limits | undefined;
  /** The models the key may use; `null`: every model its plan allows. */
  allowedModels: readonly string[] | null;
}

function dailyRefusal(decision: Extract<LimitDecision, { admitted: true }>, daily: DailyDecision, limit: number, requested: number, now: number): Extract<LimitDecision, { admitted: false }> {
  return {
    admitted: false,
    exceeded: 'daily-tokens',
    retryAfterMs: Math.max(daily.resetsAt - now, 1),
    tooLarge: requested > limit,
    requested,
    state: { ...decision.state, 'daily-tokens': toReading(limit, daily.total, daily.resetsAt) },
  };
}

/** A bucket's reservation: its readings, and how to settle or take it back. */
interface Reservation {
  state: LimitState;
  daily: DailyDecision | undefined;
  settle(used: number): Promise<void>;
  cancel(): Promise<void>;
}

/** A key's own limits as limits (a missing or `null` field: none of its own); undefined when it has none. */
function ownLimits(overrides: LimitOverrides): Limits | undefined {
  const limits: Limits = { requestsPerMinute: overrides.requestsPerMinute ?? null, tokensPerMinute: overrides.tokensPerMinute ?? null, tokensPerDay: overrides.tokensPerDay ?? null };
  return limits.requestsPerMinute === null && limits.tokensPerMinute === null && limits.tokensPerDay === null ? undefined : limits;
}

/** Per limit, the reading with the least left: what the client may still send. */
function tighterState(first: LimitState, second: LimitState): LimitState {
  const state: LimitState = { ...first };
  for (const [dimension, reading] of Object.entries(second) as [LimitDimension, LimitReading][]) {
    const current = state[dimension];
    if (current === undefined || reading.remaining < current.remaining || (reading.remaining === current.remaining && reading.limit < current.limit)) state[dimension] = reading;
  }
  return state;
}

/**
 * Keys, plans, quotas and rate limits behind the core's `AccessControl` seam: keys are looked
 * up by SHA-256 (cached, see `createKeyCache`), requests count against their organisation's
 * limits (test keys in their own buckets), tokens are reserved as `prompt + max_tokens` and
 * settled to real usage, the day's tokens are counted in the store, and every admitted request
 * is written to the store's usage ledger: its settled row is committed (group commit) before
 * its answer is acknowledged, which also settles the organisation's day.
 *
 * @example
 * const accessControl = createAccessControl({ store: createSqliteStore('.data/keys.sqlite') });
 * const handler = createChatHandler({ engine, accessControl });
 */
export function createAccessControl(options: AccessControlOptions): StoreAccessControl {
  const { store } = options;
  const now = options.now ?? Date.now;
  const limiter = options.limiter ?? createLimiter();
  const planDefaults = options.planDefaults ?? defaultPlanLimits;
  const keys = createKeyCache({
    store,
    ...(options.keyCacheTtlMs !== undefined ? { ttlMs: options.keyCacheTtlMs } : {}),
    ...(options.storeTimeoutMs !== undefined ? { timeoutMs: options.storeTimeoutMs } : {}),
    onStateChange: (available, reason) => options.onStoreStateChange?.(available, 'keys', reason),
  });
  const ledger = createUsageLedger({ store, ...options.usage });
  let dailyQuota: DailyQuota | undefined;
  const daily = () =>
    (dailyQuota ??= createDailyQuota({
      store,
      // Durable ledger: each request's settle is a synchronous commit before its answer, which
      // makes its reservation durable with it. The buffered ledger is kept as it was (the
      // baseline it is benchmarked as), each reservation flushed on its own.
      flushedBySettle: ledger.durable,
      ...(options.dailyTimeoutMs !== undefined ? { timeoutMs: options.dailyTimeoutMs } : {}),
      failClosed: options.failClosed ?? false,
      onStateChange: (available, reason) => options.onStoreStateChange?.(available, 'daily', reason),
      onError: (error) => report(error),
    }));
  // The handler hands `admit` the principal `authenticate` returned; what it needs rides here.
  const contexts = new WeakMap<Principal, KeyContext>();
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      // Reporting must never alter the outcome.
    }
  };

  /**
   * What `reserve` would answer for a request over its requests per minute, found without
   * counting its prompt, so that such a request never pays for tokenising it. The key's own
   * bucket first and the same readings as `reserveIn` (per minute), so that the refusal and
   * its headers are the ones `reserve` gives; `reserve` still decides what it admits.
   */
  async function refuseOverRequestLimit(principal: Principal, context: KeyContext | undefined): Promise<void> {
    const buckets: [string, Limits, string][] = [];
    if (context?.keyLimits !== undefined) buckets.push([`key:${context.keyId}`, context.keyLimits, `key ${principal.keyId}`]);
    buckets.push([bucketOf(principal), context?.limits ?? resolveLimits(principal.plan, {}, planDefaults), organisationScope(principal)]);
    for (const [bucket, limits, scope] of buckets) {
      if (limits.requestsPerMinute === null) continue;
      const state = await limiter.read(bucket, { ...limits, tokensPerDay: null });
      const requests = state.requests!;
      if (requests.used < requests.limit) continue;
      const retryAfterMs = Math.max(requests.resetsAt - Date.now(), 1);
      throw limitError({ admitted: false, exceeded: 'requests', retryAfterMs, tooLarge: false, requested: 1, state }, scope);
    }
  }

  const organisationScope = (principal: Principal) => `organisation '${principal.organisationId}'${principal.kind === 'test' ? ', test keys' : ''}`;
  const limitsOf = (principal: Principal) => contexts.get(principal)?.limits ?? resolveLimits(principal.plan, {}, planDefaults);
  const bucketOf = (principal: Principal) => `${principal.organisationId}:${principal.kind}`;

  /**
   * Reserves a request in one bucket: per minute in the limiter, the day in the store. The
   * organisation's day is settled by its usage row; a key's own day (`settleDay`) directly.
   */
  async function reserveIn(bucket: string, limits: Limits, reserved: number, scope: string, settleDay: boolean): Promise<Reservation> {
    // The day is counted in the store, not by the limiter (which counts per minute, in memory or Redis).
    const decision = await limiter.reserve(bucket, limits.tokensPerDay === null ? limits : { ...limits, tokensPerDay: null }, reserved);
    if (!decision.admitted) throw limitError(decision, scope);
    if (limits.tokensPerDay === null) return { state: decision.state, daily: undefined, settle: decision.settle, cancel: decision.cancel };
    let dayDecision: DailyDecision;
    try {
      dayDecision = await daily().reserve(bucket, reserved, limits.tokensPerDay);
    } catch (error) {
      await decision.cancel();
      throw error;
    }
    if (!dayDecision.admitted) {
      await decision.cancel();
      throw limitError(dailyRefusal(decision, dayDecision, limits.tokensPerDay, reserved, Date.now()), scope);
    }
    const state = { ...decision.state, 'daily-tokens': toReading(limits.tokensPerDay, dayDecision.total, dayDecision.resetsAt) };
    const correctDay = (tokens: number) => (tokens === 0 ? Promise.resolve() : store.addDailyTokens({ bucket, day: dayDecision.day, tokens }).catch(report));
    return {
      state,
      daily: dayDecision,
      async settle(used) {
        await decision.settle(used);
        if (settleDay) await correctDay(Math.max(0, Math.round(used)) - dayDecision.charged);
      },
      async cancel() {
        await decision.cancel();
        await correctDay(-dayDecision.charged);
      },
    };
  }

  /** The key's own bucket first (a refusal there costs the organisation nothing), then the organisation's. */
  async function reserve(principal: Principal, context: KeyContext | undefined, reserved: number): Promise<{ state: LimitState; settle(used: number): Promise<void>; daily: DailyDecision | undefined }> {
    const limits = context?.limits ?? resolveLimits(principal.plan, {}, planDefaults);
    const own = context?.keyLimits === undefined ? undefined : await reserveIn(`key:${context.keyId}`, context.keyLimits, reserved, `key ${principal.keyId}`, true);
    let organisation: Reservation;
    try {
      organisation = await reserveIn(bucketOf(principal), limits, reserved, organisationScope(principal), false);
    } catch (error) {
      await own?.cancel();
      throw error;
    }
    if (own === undefined) return organisation;
    return {
      state: tighterState(organisation.state, own.state),
      daily: organisation.daily,
      settle: async (used) => {
        await Promise.all([organisation.settle(used), own.settle(used)]);
      },
    };
  }

  return {
    limiter,
    ledger,
    limitsOf,
    bucketOf,
    async authenticate(key) {
      const found = await keys.lookup(hashApiKey(key.key));
      if (found === undefined || found.key.revoked) {
        throw new QuantumChatError('invalid_api_key', `Incorrect API key provided: ${key.display}. ${found ? 'The key was revoked.' : 'No such key exists.'}`);
      }
      if (found.key.expiresAt !== null && found.key.expiresAt <= now()) {
        throw new QuantumChatError('invalid_api_key', `Incorrect API key provided: ${key.display}. The key expired at ${new Date(found.key.expiresAt).toISOString()}.`);
      }
      const principal: Principal = {
        keyId: key.display,
        organisationId: found.organisation.name,
        plan: found.organisation.plan,
        kind: found.key.kind,
        ...(found.key.requireSignature ? { requireSignature: true } : {}),
        ...(found.key.allowedModels !== null ? { allowedModels: found.key.allowedModels } : {}),
      };
      contexts.set(principal, {
        keyId: found.key.id,
        limits: resolveLimits(found.organisation.plan, found.organisation.limits, planDefaults),
        keyLimits: ownLimits(found.key.limits),
        allowedModels: found.key.allowedModels,
      });
      return principal;
    },
    async admit(principal, demand) {
      const allowedModels = contexts.get(principal)?.allowedModels;
      if (allowedModels != null && !allowedModels.includes(demand.model)) {
        throw new QuantumChatError(
          'model_not_allowed',
          `The key ${principal.keyId} may not use the model '${demand.model}'; it may use ${allowedModels.map((model) => `'${model}'`).join(', ') || 'no model'}.`,
          { param: 'model' },
        );
      }
      const context = contexts.get(principal);
      // Counting is the expensive part of a long prompt: a request that its request limit
      // refuses anyway is refused first, without it.
      const prompt = demand.prompt;
      if (prompt?.count !== undefined && prompt.bound > countPromptAtOnceBelow) await refuseOverRequestLimit(principal, context);
      const counted = prompt === undefined ? demand.promptTokens : prompt.count?.() ?? prompt.bound;
      const promptTokens = Math.max(0, Math.round(typeof counted === 'number' ? counted : await counted));
      const reserved = promptTokens + Math.max(0, Math.round(demand.maxTokens));
      const { state, settle, daily: dayDecision } = await reserve(principal, context, reserved);
      const running = ledger.begin({
        usageId: timeOrderedUsageId(now()),
        requestId: demand.requestId,
        keyId: contexts.get(principal)?.keyId ?? principal.keyId,
        organisation: principal.organisationId,
        model: demand.model,
        promptTokens,
        timestamp: now(),
        ...(demand.api !== undefined ? { api: demand.api } : {}),
        ...(dayDecision !== undefined ? { daily: { bucket: bucketOf(principal), day: dayDecision.day, charged: dayDecision.charged } } : {}),
      });
      let settled = false;
      return {
        headers: rateLimitHeaders(state),
        track: (read) => running.track(read),
        // The answer waits for its usage row (and, in the same transaction, the organisation's day).
        settleBeforeAnswer: ledger.durable,
        async settle(outcome: AdmissionOutcome) {
          if (settled) return;
          settled = true;
          // Both at once: the row's commit and the limits' release (per minute, a key's own day).
          const released = settle(outcome.promptTokens + outcome.completionTokens).catch(report);
          try {
            await running.settle(outcome);
          } finally {
            await released;
          }
        },
      };
    },
    async admitRequest(principal) {
      const context = contexts.get(principal);
      // A request and no tokens, in the key's own bucket (if it has one) and the organisation's; no day is counted.
      const buckets: [string, Limits, string][] = [];
      if (context?.keyLimits !== undefined) buckets.push([`key:${context.keyId}`, { ...context.keyLimits, tokensPerDay: null }, `key ${principal.keyId}`]);
      buckets.push([bucketOf(principal), { ...limitsOf(principal), tokensPerDay: null }, organisationScope(principal)]);
      const admitted: Array<Extract<LimitDecision, { admitted: true }>> = [];
      for (const [bucket, limits, scope] of buckets) {
        const decision = await limiter.reserve(bucket, limits, 0);
        if (!decision.admitted) {
          for (const earlier of admitted) await earlier.cancel();
          throw limitError(decision, scope);
        }
        admitted.push(decision);
      }
      for (const decision of admitted) await decision.settle(0);
      return { headers: rateLimitHeaders(admitted.at(-1)!.state) };
    },
    async close() {
      keys.dispose();
      dailyQuota?.dispose();
      await ledger.close();
    },
  };
}
