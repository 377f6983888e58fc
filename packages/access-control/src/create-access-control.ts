import {
  countPromptAtOnceBelow,
  QuantumChatError,
  type AccessControl,
  type Admission,
  type AdmissionDemand,
  type AdmissionOutcome,
  type AdmissionProgress,
  type Principal,
} from '@quantum-chat/core';
import { createLimiter, type LimitDecision, type Limiter } from './create-limiter.js';
import { createDailyQuota, type DailyDecision, type DailyQuota } from './daily-quota.js';
import { hashApiKey } from './hash-api-key.js';
import { createKeyCache } from './key-cache.js';
import type { ResolvedApiKey, ServiceStore } from './service-store/index.js';
import { limitError } from './limit-error.js';
import { toReading, type LimitDimension, type LimitReading, type LimitState } from './limit-state.js';
import { defaultPlanLimits, resolveLimits, type LimitOverrides, type Limits, type PlanLimits } from './plan-limits.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import { nothingToWait } from './settled-promise.js';
import { timeOrderedUsageId } from './usage-id.js';
import { createUsageLedger, type RunningUsage, type UsageLedger, type UsageLedgerOptions } from './usage-ledger.js';

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
  /**
   * Per-instance leases of the day's tokens (decisions §6): far from its daily limit, a bucket
   * asks the store for a share of its day once per several requests instead of once per
   * request. Their unused tokens count as held until given back (a second after their last
   * use, or at `close`). False by default.
   */
  dailyLeases?: boolean;
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
  /** `limits` without the day (counted in the store, not by the limiter): made once per key lookup, not per request. */
  minuteLimits: Limits;
  /** The key's own limits (a bucket of its own, within the organisation's); undefined: none. */
  keyLimits: Limits | undefined;
  keyMinuteLimits: Limits | undefined;
  /** The models the key may use; `null`: every model its plan allows. */
  allowedModels: readonly string[] | null;
}

/** Limits without the day's tokens, which the store counts. */
const perMinute = (limits: Limits): Limits => (limits.tokensPerDay === null ? limits : { ...limits, tokensPerDay: null });

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

type AdmittedLimits = Extract<LimitDecision, { admitted: true }>;

/**
 * A bucket's reservation: its readings, and how to settle or take it back. A class, not a
 * literal of closures: one hidden class and no closure per request (call its methods).
 */
class Reservation {
  readonly state: LimitState;
  readonly daily: DailyDecision | undefined;
  readonly #minute: AdmittedLimits;
  readonly #bucket: string;
  /** The day is corrected here at settle (a key's own day); otherwise the usage row settles it. */
  readonly #settleDay: boolean;
  readonly #correctDay: DayCorrection;

  constructor(minute: AdmittedLimits, state: LimitState, daily: DailyDecision | undefined, bucket: string, settleDay: boolean, correctDay: DayCorrection) {
    this.#minute = minute;
    this.state = state;
    this.daily = daily;
    this.#bucket = bucket;
    this.#settleDay = settleDay;
    this.#correctDay = correctDay;
  }

  settle(used: number): Promise<void> {
    const minute = this.#minute.settle(used);
    if (this.daily === undefined || !this.#settleDay) return minute;
    return Promise.all([minute, this.#correctDay(this.#bucket, this.daily.day, Math.max(0, Math.round(used)) - this.daily.charged)]).then(noValue);
  }

  cancel(): Promise<void> {
    const minute = this.#minute.cancel();
    if (this.daily === undefined) return minute;
    return Promise.all([minute, this.#correctDay(this.#bucket, this.daily.day, -this.daily.charged)]).then(noValue);
  }
}

/** Adds tokens to a bucket's day in the store (never rejects: failures are reported). */
type DayCorrection = (bucket: string, day: string, tokens: number) => Promise<void>;

/** A key's own bucket and its organisation's, reserved together: the tighter readings, both settled. */
class BothReservations {
  readonly state: LimitState;
  readonly daily: DailyDecision | undefined;
  readonly #organisation: Reservation;
  readonly #own: Reservation;
  constructor(organisation: Reservation, own: Reservation) {
    this.#organisation = organisation;
    this.#own = own;
    this.state = tighterState(organisation.state, own.state);
    this.daily = organisation.daily;
  }
  settle(used: number): Promise<void> {
    return Promise.all([this.#organisation.settle(used), this.#own.settle(used)]).then(noValue);
  }
}

const noValue = (): void => undefined;

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
      leases: options.dailyLeases ?? false,
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
      const minuteLimits = { ...limits, tokensPerDay: null };
      const state = limiter.readNow?.(bucket, minuteLimits) ?? (await limiter.read(bucket, minuteLimits));
      const requests = state.requests!;
      if (requests.used < requests.limit) continue;
      const retryAfterMs = Math.max(requests.resetsAt - Date.now(), 1);
      throw limitError({ admitted: false, exceeded: 'requests', retryAfterMs, tooLarge: false, requested: 1, state }, scope);
    }
  }

  const organisationScope = (principal: Principal) => `organisation '${principal.organisationId}'${principal.kind === 'test' ? ', test keys' : ''}`;
  const limitsOf = (principal: Principal) => contexts.get(principal)?.limits ?? resolveLimits(principal.plan, {}, planDefaults);
  const bucketOf = (principal: Principal) => `${principal.organisationId}:${principal.kind}`;

  const correctDay: DayCorrection = (bucket, day, tokens) => (tokens === 0 ? nothingToWait : store.addDailyTokens({ bucket, day, tokens }).catch(report));

  /**
   * Reserves a request in one bucket: per minute in the limiter (at once, without a promise,
   * when it counts in memory), the day in the store. The organisation's day is settled by its
   * usage row; a key's own day (`settleDay`) directly.
   */
  async function reserveIn(bucket: string, limits: Limits, minuteLimits: Limits, reserved: number, scope: string, settleDay: boolean): Promise<Reservation> {
    // The day is counted in the store, not by the limiter (which counts per minute, in memory or Redis).
    const decision = limiter.reserveNow?.(bucket, minuteLimits, reserved) ?? (await limiter.reserve(bucket, minuteLimits, reserved));
    if (!decision.admitted) throw limitError(decision, scope);
    if (limits.tokensPerDay === null) return new Reservation(decision, decision.state, undefined, bucket, settleDay, correctDay);
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
    const state = decision.state;
    state['daily-tokens'] = toReading(limits.tokensPerDay, dayDecision.total, dayDecision.resetsAt);
    return new Reservation(decision, state, dayDecision, bucket, settleDay, correctDay);
  }

  /** The key's own bucket first (a refusal there costs the organisation nothing), then the organisation's. */
  async function reserve(principal: Principal, context: KeyContext | undefined, reserved: number): Promise<Reservation | BothReservations> {
    const limits = context?.limits ?? resolveLimits(principal.plan, {}, planDefaults);
    const minuteLimits = context?.minuteLimits ?? perMinute(limits);
    const own = context?.keyLimits === undefined ? undefined : await reserveIn(`key:${context.keyId}`, context.keyLimits, context.keyMinuteLimits!, reserved, `key ${principal.keyId}`, true);
    if (own === undefined) return reserveIn(bucketOf(principal), limits, minuteLimits, reserved, organisationScope(principal), false);
    let organisation: Reservation;
    try {
      organisation = await reserveIn(bucketOf(principal), limits, minuteLimits, reserved, organisationScope(principal), false);
    } catch (error) {
      await own.cancel();
      throw error;
    }
    return new BothReservations(organisation, own);
  }

  /**
   * The principal of a key found: one object per key lookup, shared by the requests it serves
   * while the key cache trusts that lookup (a new lookup gives a new one), so that a cached
   * key costs no principal, limits or context per request.
   */
  const principals = new WeakMap<ResolvedApiKey, Principal>();
  function principalOf(found: ResolvedApiKey, display: string): Principal {
    const known = principals.get(found);
    if (known !== undefined && known.keyId === display) return known;
    const principal: Principal = {
      keyId: display,
      organisationId: found.organisation.name,
      plan: found.organisation.plan,
      kind: found.key.kind,
      ...(found.key.requireSignature ? { requireSignature: true } : {}),
      ...(found.key.allowedModels !== null ? { allowedModels: found.key.allowedModels } : {}),
    };
    const limits = resolveLimits(found.organisation.plan, found.organisation.limits, planDefaults);
    const keyLimits = ownLimits(found.key.limits);
    contexts.set(principal, {
      keyId: found.key.id,
      limits,
      minuteLimits: perMinute(limits),
      keyLimits,
      keyMinuteLimits: keyLimits === undefined ? undefined : perMinute(keyLimits),
      allowedModels: found.key.allowedModels,
    });
    principals.set(found, principal);
    return principal;
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
      return principalOf(found, key.display);
    },
    async admit(principal, demand) {
      const context = contexts.get(principal);
      const allowedModels = context?.allowedModels;
      if (allowedModels != null && !allowedModels.includes(demand.model)) {
        throw new QuantumChatError(
          'model_not_allowed',
          `The key ${principal.keyId} may not use the model '${demand.model}'; it may use ${allowedModels.map((model) => `'${model}'`).join(', ') || 'no model'}.`,
          { param: 'model' },
        );
      }
      // Counting is the expensive part of a long prompt: a request that its request limit
      // refuses anyway is refused first, without it.
      const prompt = demand.prompt;
      if (prompt?.count !== undefined && prompt.bound > countPromptAtOnceBelow) await refuseOverRequestLimit(principal, context);
      const counted = prompt === undefined ? demand.promptTokens : prompt.count?.() ?? prompt.bound;
      const promptTokens = Math.max(0, Math.round(typeof counted === 'number' ? counted : await counted));
      const reserved = promptTokens + Math.max(0, Math.round(demand.maxTokens));
      const reservation = await reserve(principal, context, reserved);
      const dayDecision = reservation.daily;
      const time = now();
      const running = ledger.begin({
        usageId: timeOrderedUsageId(time),
        requestId: demand.requestId,
        keyId: context?.keyId ?? principal.keyId,
        organisation: principal.organisationId,
        model: demand.model,
        promptTokens,
        timestamp: time,
        api: demand.api ?? 'chat.completions',
        daily: dayDecision !== undefined ? { bucket: bucketOf(principal), day: dayDecision.day, charged: dayDecision.charged } : undefined,
      });
      return new LedgerAdmission(rateLimitHeaders(reservation.state), ledger.durable, reservation, running, report);
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
      await dailyQuota?.dispose();
      await ledger.close();
    },
  };
}

/**
 * An admitted request of the store-backed access control: its headers, the progress reader it
 * is given, and its settle (the usage row's commit and the limits' release at once). A class,
 * not a literal of closures: one hidden class and no closure per request.
 */
class LedgerAdmission implements Admission {
  readonly headers: Record<string, string>;
  /** The answer waits for its usage row (and, in the same transaction, the organisation's day). */
  readonly settleBeforeAnswer: boolean;
  readonly #reservation: { settle(used: number): Promise<void> };
  readonly #running: RunningUsage;
  readonly #report: (error: unknown) => void;
  #settled = false;

  constructor(headers: Record<string, string>, settleBeforeAnswer: boolean, reservation: { settle(used: number): Promise<void> }, running: RunningUsage, report: (error: unknown) => void) {
    this.headers = headers;
    this.settleBeforeAnswer = settleBeforeAnswer;
    this.#reservation = reservation;
    this.#running = running;
    this.#report = report;
  }

  track(read: () => AdmissionProgress): void {
    this.#running.track(read);
  }

  settle(outcome: AdmissionOutcome): Promise<void> {
    if (this.#settled) return nothingToWait;
    this.#settled = true;
    // Both at once: the row's commit and the limits' release (per minute, a key's own day).
    const released = this.#reservation.settle(outcome.promptTokens + outcome.completionTokens);
    const committed = this.#running.settle(outcome);
    // Released in this turn (limits in memory): only the commit to wait for.
    if (released === nothingToWait) return committed;
    return Promise.all([committed, released.catch(this.#report)]).then(noValue);
  }
}
