import { RateLimiterMemory } from 'rate-limiter-flexible';
import { createRedisClient, maxRedisTimeoutMs } from './create-redis-client.js';
import { demandsOf, toReading, windowSeconds, type LimitDimension, type LimitState } from './limit-state.js';
import type { Limits } from './plan-limits.js';
import type { RedisClient } from './redis-client.js';
import { createRedisCircuit } from './redis-circuit.js';
import { createRedisWindowCounter } from './redis-window-counter.js';
import { createMemoryWindowCounter, unlimitedPoints, type WindowCharge, type WindowCounter } from './window-counter.js';

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
  /** Where a bucket stands, without counting anything. */
  read(bucket: string, limits: Limits): Promise<LimitState>;
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
  const counters = Object.fromEntries(
    dimensions.map((dimension): [LimitDimension, WindowCounter] => [
      dimension,
      client && circuit
        ? createRedisWindowCounter({
            client,
            circuit,
            timeoutMs,
            keyPrefix: `${keyPrefix}:${dimension}`,
            durationSeconds: windowSeconds[dimension],
            ...(options.failClosed ? {} : { insurance: memoryLimiter(dimension) }),
            ...(options.onRedisError ? { onError: options.onRedisError } : {}),
          })
        : createMemoryWindowCounter(memoryLimiter(dimension)),
    ]),
  ) as Record<LimitDimension, WindowCounter>;

  async function reserve(bucket: string, limits: Limits, tokens: number): Promise<LimitDecision> {
    const demands = demandsOf(limits, tokens);
    const results = await Promise.allSettled(demands.map((demand) => counters[demand.dimension].add(bucket, demand.points)));
    const charges = results.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
    const refundAll = () => Promise.all(charges.map((charge, index) => charge?.refund(demands[index]!.points)));
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure !== undefined) {
      await refundAll();
      throw failure.reason;
    }
    const counted = charges as WindowCharge[];
    const exceeded = demands.filter((demand, index) => counted[index]!.total > demand.limit);
    if (exceeded.length === 0) {
      const state: LimitState = {};
      demands.forEach((demand, index) => (state[demand.dimension] = toReading(demand.limit, counted[index]!.total, counted[index]!.resetsAt)));
      const settle = createSettle(bucket, demands, counted, tokens);
      return { admitted: true, state, settle, cancel: () => settle(-1, refundAll) };
    }
    await refundAll();
    const state: LimitState = {};
    demands.forEach((demand, index) => {
      state[demand.dimension] = toReading(demand.limit, counted[index]!.total - demand.points, counted[index]!.resetsAt);
    });
    // The day's quota outranks a per-minute limit: retrying in a minute would not help.
    const refusal = exceeded.find((demand) => demand.dimension === 'daily-tokens') ?? exceeded[0]!;
    const retryAfterMs = Math.max(...exceeded.map((demand) => state[demand.dimension]!.resetsAt - Date.now()), 1);
    return { admitted: false, exceeded: refusal.dimension, retryAfterMs, tooLarge: refusal.points > refusal.limit, requested: refusal.points, state };
  }

  function createSettle(bucket: string, demands: ReturnType<typeof demandsOf>, charges: WindowCharge[], reserved: number) {
    let settled = false;
    return async (usedTokens: number, cancel?: () => Promise<unknown>): Promise<void> => {
      if (settled) return;
      settled = true;
      if (cancel !== undefined) {
        await cancel();
        return;
      }
      const difference = Math.max(0, Math.round(usedTokens)) - reserved;
      if (difference === 0) return;
      await Promise.all(
        demands.map(async (demand, index) => {
          if (demand.dimension === 'requests') return;
          if (difference < 0) return charges[index]!.refund(-difference);
          // More than reserved (an engine that overran its count): charge the rest now.
          await counters[demand.dimension].add(bucket, difference).catch((error: unknown) => options.onRedisError?.(error));
        }),
      );
    };
  }

  return {
    backend: client ? 'redis' : 'memory',
    reserve,
    async read(bucket, limits) {
      const demands = demandsOf(limits, 0);
      const counts = await Promise.all(demands.map((demand) => counters[demand.dimension].read(bucket)));
      const state: LimitState = {};
      demands.forEach((demand, index) => (state[demand.dimension] = toReading(demand.limit, counts[index]!.total, counts[index]!.resetsAt)));
      return state;
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
