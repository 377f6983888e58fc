import { RateLimiterMemory } from 'rate-limiter-flexible';
import { createRedisClient, maxRedisTimeoutMs } from './create-redis-client.js';
import { demandsOf as limitDemands, toReading, windowSeconds, type LimitDemand, type LimitDimension, type LimitState } from './limit-state.js';
import type { Limits } from './plan-limits.js';
import type { RedisClient } from './redis-client.js';
import { createRedisCircuit } from './redis-circuit.js';
import { createRedisWindowCounter } from './redis-window-counter.js';
import { MemoryWindows } from './memory-windows.js';
import { nothingToWait } from './settled-promise.js';
import { unlimitedPoints, type WindowCharge, type WindowCount, type WindowCounter } from './window-counter.js';

export interface LimiterOptions {
  /** An ioredis client or a `redis://` URL: limits are then shared by every instance using it. */
  redis?: RedisClient | string;
  /** When Redis fails: `false` (default) counts in this process instead; `true` answers 503. */
  failClosed?: boolean;
  /** The most a request waits on Redis; 50 ms by default, at most 100 ms. */
  redisTimeoutMs?: number;
  /** The prefix of every Redis key; `quantum-chat:limits` by default. */
  keyPrefix?: string;
  /** Reporting only: Redis errors, and the limiter switching to and from its fallback. */
  onRedisError?: (error: unknown) => void;
  onRedisStateChange?: (available: boolean, reason: unknown) => void;
}

/** The limiter's answer to a reservation. */
export type LimitDecision =
  | {
      admitted: true;
      state: LimitState;
      /** Settles the reservation to the tokens really used: unused ones are credited back. Runs once; never rejects. */
      settle(usedTokens: number): Promise<void>;
      /** Takes the whole reservation back, the request included (a later check refused it). Never rejects. */
      cancel(): Promise<void>;
    }
  | {
      admitted: false;
      /** The limit that refused: `daily-tokens` when the day's quota cannot cover the request. */
      exceeded: LimitDimension;
      retryAfterMs: number;
      /** The request alone is larger than the limit: waiting will not help. */
      tooLarge: boolean;
      requested: number;
      state: LimitState;
    };

/** Counts requests and tokens per bucket against per-call limits (decisions §6). */
export interface Limiter {
  readonly backend: 'memory' | 'redis';
  /** Counts one request and reserves `tokens` in `bucket`, or refuses and counts nothing. */
  reserve(bucket: string, limits: Limits, tokens: number): Promise<LimitDecision>;
  /**
   * `reserve` answered at once, without a promise: there only when every count is in this
   * process's memory (no Redis), so that the request path awaits nothing it need not.
   */
  reserveNow?(bucket: string, limits: Limits, tokens: number): LimitDecision;
  /** Where a bucket stands, without counting anything. */
  read(bucket: string, limits: Limits): Promise<LimitState>;
  /** `read` answered at once: there only when every count is in this process's memory. */
  readNow?(bucket: string, limits: Limits): LimitState;
  /**
   * Resolves when Redis answers a PING (at once without Redis); rejects otherwise. A limiter
   * that had fallen back to counting in this process counts in Redis again from the answer on,
   * so that a readiness check that passed means the limits are shared.
   */
  ping(): Promise<void>;
  /** Resolves true once Redis is connected (at once without Redis), false after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

const dimensions: readonly LimitDimension[] = ['requests', 'tokens', 'daily-tokens'];

/** Resolves true when the client connects, false after `waitMs`. */
function connection(client: RedisClient, waitMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), waitMs);
    const onReady = () => done(true);
    function done(value: boolean) {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(value);
    }
    client.once('ready', onReady);
  });
}

/**
 * Rate limits and quotas on rate-limiter-flexible: in memory by default; with `redis`, shared
 * by every server instance and failing open onto a per-process limiter (or closed, 503) when
 * Redis fails, with no request waiting on Redis longer than `redisTimeoutMs`.
 *
 * @example
 * const limiter = createLimiter({ redis: process.env.REDIS_URL });
 * const decision = await limiter.reserve('acme:live', resolveLimits('free'), 120 + 4096);
 */
export function createLimiter(options: LimiterOptions = {}): Limiter {
  const timeoutMs = Math.min(options.redisTimeoutMs ?? 50, maxRedisTimeoutMs);
  const keyPrefix = options.keyPrefix ?? 'quantum-chat:limits';
  const memoryLimiter = (dimension: LimitDimension) =>
    new RateLimiterMemory({ points: unlimitedPoints, duration: windowSeconds[dimension], keyPrefix: `${keyPrefix}:${dimension}` });
  const client =
    typeof options.redis === 'string' ? createRedisClient(options.redis, { onError: (error) => options.onRedisError?.(error) }) : options.redis;
  const circuit =
    client &&
    createRedisCircuit({
      ping: () => client.ping(),
      timeoutMs,
      onChange: (open, reason) => options.onRedisStateChange?.(!open, reason),
    });
  // A Redis that dies while no request asks it anything is noticed too (and reported once):
  // the circuit opens when the connection drops, and its probe reports when Redis is back.
  const onConnectionLost = () => {
    if (circuit !== undefined && !closing) circuit.trip(new Error('The connection to Redis was lost.'));
  };
  let closing = false;
  client?.on('close', onConnectionLost);
  const memory = client === undefined ? (Object.fromEntries(dimensions.map((dimension) => [dimension, new MemoryWindows(windowSeconds[dimension])])) as Record<LimitDimension, MemoryWindows>) : undefined;
  const counters: Record<LimitDimension, WindowCounter> =
    memory ??
    (Object.fromEntries(
      dimensions.map((dimension): [LimitDimension, WindowCounter] => [
        dimension,
        createRedisWindowCounter({
          client: client!,
          circuit: circuit!,
          timeoutMs,
          keyPrefix: `${keyPrefix}:${dimension}`,
          durationSeconds: windowSeconds[dimension],
          ...(options.failClosed ? {} : { insurance: memoryLimiter(dimension) }),
          ...(options.onRedisError ? { onError: options.onRedisError } : {}),
        }),
      ]),
    ) as Record<LimitDimension, WindowCounter>);
  const onError = (error: unknown) => options.onRedisError?.(error);

  async function reserve(bucket: string, limits: Limits, tokens: number): Promise<LimitDecision> {
    const demands = limitDemands(limits, tokens);
    const results = await Promise.allSettled(demands.map((demand) => counters[demand.dimension].add(bucket, demand.points)));
    const charges = results.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure !== undefined) {
      await Promise.all(charges.map((charge, index) => charge?.refund(demands[index]!.points)));
      throw failure.reason;
    }
    const decision = decide(bucket, demands, charges as WindowCharge[], tokens);
    if (!decision.admitted) await Promise.all(refundAll(demands, charges as WindowCharge[]));
    return decision;
  }

  /** The memory limiter's `reserve`: counted, compared and (refused) taken back in this turn. */
  function reserveNow(bucket: string, limits: Limits, tokens: number): LimitDecision {
    const demands = limitDemands(limits, tokens);
    const charges: WindowCharge[] = [];
    for (const demand of demands) charges.push(memory![demand.dimension].addNow(bucket, demand.points));
    const decision = decide(bucket, demands, charges, tokens);
    // Memory refunds are done when they return: nothing to wait for.
    if (!decision.admitted) void refundAll(demands, charges);
    return decision;
  }

  /** The decision on counted demands; a refusal's charges are still to be refunded by the caller. */
  function decide(bucket: string, demands: LimitDemand[], charges: WindowCharge[], tokens: number): LimitDecision {
    const state: LimitState = {};
    let exceeded: LimitDemand | undefined;
    for (let index = 0; index < demands.length; index++) {
      const demand = demands[index]!;
      if (charges[index]!.total <= demand.limit) continue;
      // The day's quota outranks a per-minute limit: retrying in a minute would not help.
      if (exceeded === undefined || demand.dimension === 'daily-tokens') exceeded = demand;
    }
    if (exceeded === undefined) {
      for (let index = 0; index < demands.length; index++) state[demands[index]!.dimension] = toReading(demands[index]!.limit, charges[index]!.total, charges[index]!.resetsAt);
      return new AdmittedDecision(state, bucket, demands, charges, tokens, counters, onError);
    }
    let retryAt = 0;
    for (let index = 0; index < demands.length; index++) {
      const demand = demands[index]!;
      const reading = toReading(demand.limit, charges[index]!.total - demand.points, charges[index]!.resetsAt);
      state[demand.dimension] = reading;
      if (charges[index]!.total > demand.limit) retryAt = Math.max(retryAt, reading.resetsAt);
    }
    const retryAfterMs = Math.max(retryAt - Date.now(), 1);
    return { admitted: false, exceeded: exceeded.dimension, retryAfterMs, tooLarge: exceeded.points > exceeded.limit, requested: exceeded.points, state };
  }

  const readState = (demands: LimitDemand[], counts: WindowCount[]): LimitState => {
    const state: LimitState = {};
    demands.forEach((demand, index) => (state[demand.dimension] = toReading(demand.limit, counts[index]!.total, counts[index]!.resetsAt)));
    return state;
  };

  return {
    backend: client ? 'redis' : 'memory',
    reserve,
    ...(memory !== undefined
      ? {
          reserveNow,
          readNow(bucket: string, limits: Limits) {
            const demands = limitDemands(limits, 0);
            return readState(demands, demands.map((demand) => memory[demand.dimension].readNow(bucket)));
          },
        }
      : {}),
    async read(bucket, limits) {
      const demands = limitDemands(limits, 0);
      return readState(demands, await Promise.all(demands.map((demand) => counters[demand.dimension].read(bucket))));
    },
    async ping() {
      if (client === undefined) return;
      // No offline queue: a disconnected client rejects at once instead of waiting.
      await client.ping();
      circuit?.answered();
    },
    async ready(waitMs = 2000) {
      if (client === undefined) return true;
      const connected = client.status === 'ready' || (await connection(client, waitMs));
      if (connected) await Promise.all(dimensions.map((dimension) => counters[dimension].warmUp?.()));
      return connected;
    },
    async close() {
      closing = true;
      client?.off('close', onConnectionLost);
      circuit?.dispose();
      if (typeof options.redis !== 'string' || client === undefined) return;
      await Promise.race([client.quit().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 200))]);
      client.disconnect();
    },
  };
}

/** A refusal's charges given back (memory: at once; Redis: the promises to wait for). */
function refundAll(demands: readonly LimitDemand[], charges: readonly WindowCharge[]): Promise<void>[] {
  const refunds: Promise<void>[] = [];
  for (let index = 0; index < charges.length; index++) refunds.push(charges[index]!.refund(demands[index]!.points));
  return refunds;
}

/**
 * An admitted reservation. A class, not a literal of closures: one hidden class and no
 * closure per request (call `settle` and `cancel` as methods).
 */
class AdmittedDecision {
  readonly admitted = true as const;
  readonly state: LimitState;
  readonly #bucket: string;
  readonly #demands: readonly LimitDemand[];
  readonly #charges: readonly WindowCharge[];
  readonly #reserved: number;
  readonly #counters: Record<LimitDimension, WindowCounter>;
  readonly #onError: (error: unknown) => void;
  #settled = false;

  constructor(state: LimitState, bucket: string, demands: readonly LimitDemand[], charges: readonly WindowCharge[], reserved: number, counters: Record<LimitDimension, WindowCounter>, onError: (error: unknown) => void) {
    this.state = state;
    this.#bucket = bucket;
    this.#demands = demands;
    this.#charges = charges;
    this.#reserved = reserved;
    this.#counters = counters;
    this.#onError = onError;
  }

  /** Settles the reservation to the tokens really used: unused ones are credited back. Runs once; never rejects. */
  settle(usedTokens: number): Promise<void> {
    if (this.#settled) return nothingToWait;
    this.#settled = true;
    const difference = Math.max(0, Math.round(usedTokens)) - this.#reserved;
    if (difference === 0) return nothingToWait;
    const work: Promise<unknown>[] = [];
    for (let index = 0; index < this.#demands.length; index++) {
      const demand = this.#demands[index]!;
      if (demand.dimension === 'requests') continue;
      if (difference < 0) {
        const charge = this.#charges[index]!;
        const refund = charge.refund(-difference);
        // A memory refund is done when it returns: nothing to wait for.
        if (charge.backend !== 'memory') work.push(refund);
      }
      // More than reserved (an engine that overran its count): charge the rest now.
      else work.push(this.#counters[demand.dimension].add(this.#bucket, difference).catch(this.#onError));
    }
    return work.length === 0 ? nothingToWait : Promise.all(work).then(noValue);
  }

  /** Takes the whole reservation back, the request included (a later check refused it). Never rejects. */
  cancel(): Promise<void> {
    if (this.#settled) return nothingToWait;
    this.#settled = true;
    return Promise.all(refundAll(this.#demands, this.#charges)).then(noValue);
  }
}

const noValue = (): void => undefined;
