import { QuantumChatError } from '@quantum-chat/core';
import { RateLimiterRedis, type RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from './redis-client.js';
import type { RedisCircuit } from './redis-circuit.js';
import { createMemoryWindowCounter, refundWithin, toWindowCount, unlimitedPoints, windowCharge, type WindowCharge, type WindowCounter } from './window-counter.js';
import { deadlineExceeded, withDeadline } from './with-deadline.js';

export interface RedisWindowCounterOptions {
  client: RedisClient;
  keyPrefix: string;
  durationSeconds: number;
  /** The most any call waits on Redis. */
  timeoutMs: number;
  circuit: RedisCircuit;
  /** Fail open onto this per-process limiter; without it, failures are 503 `engine_unavailable`. */
  insurance?: RateLimiterMemory;
  onError?: (error: unknown) => void;
}

function unavailable(cause: unknown): QuantumChatError {
  return new QuantumChatError('engine_unavailable', 'Rate limits cannot be checked right now; retry the request shortly.', {
    cause,
    headers: { 'retry-after': '1', 'retry-after-ms': '1000' },
  });
}

/**
 * A window counter shared through Redis (rate-limiter-flexible's `RateLimiterRedis`, one
 * atomic Lua `INCRBY` per call). Failing open, it is built with the memory limiter as its
 * `insuranceLimiter`, so a Redis error lands there; a Redis that does not answer within
 * `timeoutMs` is given up on the same way. Points refunded after a failure go back to the
 * side that counted them.
 *
 * @internal
 */
export function createRedisWindowCounter(options: RedisWindowCounterOptions): WindowCounter {
  const { circuit, timeoutMs, insurance } = options;
  const common = {
    storeClient: options.client,
    keyPrefix: options.keyPrefix,
    points: unlimitedPoints,
    duration: options.durationSeconds,
    // Not connected: go to the insurance at once instead of erroring inside ioredis.
    rejectIfRedisNotReady: true,
  };
  const plain = new RateLimiterRedis(common);
  const answeredByInsurance = new WeakSet<object>();
  if (insurance !== undefined) {
    const consume = insurance.consume.bind(insurance);
    // Marks what the insurance answered, so that its points are refunded there and not in Redis.
    insurance.consume = async (...args) => {
      const result = await consume(...args);
      answeredByInsurance.add(result);
      return result;
    };
  }
  const insured = insurance === undefined ? plain : new RateLimiterRedis({ ...common, insuranceLimiter: insurance });
  const memory = insurance === undefined ? undefined : createMemoryWindowCounter(insurance);

  function fallback(key: string, points: number, cause: unknown): Promise<WindowCharge> {
    if (memory === undefined) throw unavailable(cause);
    return memory.add(key, points);
  }

  function fromRedis(key: string, result: RateLimiterRes): WindowCharge {
    const count = toWindowCount(result, options.durationSeconds);
    const give = (points: number) => () => withDeadline(plain.reward(key, points), timeoutMs);
    return windowCharge(count, 'redis', (points) => refundWithin(count.resetsAt, give(points), options.onError));
  }

  /** A command given up on may still have counted, late: take its points back. */
  function undoLate(key: string, points: number, result: RateLimiterRes): void {
    const undo = answeredByInsurance.has(result) ? insurance!.reward(key, points) : plain.reward(key, points);
    undo.catch((error: unknown) => options.onError?.(error));
  }

  return {
    async add(key, points) {
      if (circuit.open) return fallback(key, points, circuit.reason);
      const pending = insured.consume(key, points);
      let result: RateLimiterRes | typeof deadlineExceeded;
      try {
        result = await withDeadline(pending, timeoutMs);
      } catch (error) {
        circuit.trip(error);
        return fallback(key, points, error);
      }
      if (result === deadlineExceeded) {
        const error = new Error(`Redis did not answer within ${timeoutMs} ms.`);
        circuit.trip(error);
        pending.then((late) => undoLate(key, points, late), () => undefined);
        return fallback(key, points, error);
      }
      if (answeredByInsurance.has(result)) {
        circuit.trip(new Error('Redis failed; counted in memory.'));
        const count = toWindowCount(result, options.durationSeconds);
        return windowCharge(count, 'memory', (given) => refundWithin(count.resetsAt, () => insurance!.reward(key, given)));
      }
      return fromRedis(key, result);
    },
    async warmUp() {
      // Adds 0: loads the Lua script (EVALSHA misses once, then EVAL) outside any request.
      await plain.consume('warm-up', 0).catch((error: unknown) => options.onError?.(error));
    },
    async read(key) {
      const fallbackRead = () => {
        if (memory === undefined) throw unavailable(circuit.reason);
        return memory.read(key);
      };
      if (circuit.open) return fallbackRead();
      try {
        const result = await withDeadline(plain.get(key), timeoutMs);
        if (result === deadlineExceeded) return fallbackRead();
        return result === null ? { total: 0, resetsAt: Date.now() + options.durationSeconds * 1000 } : toWindowCount(result, options.durationSeconds);
      } catch {
        return fallbackRead();
      }
    },
  };
}
