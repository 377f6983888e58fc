import { deadlineExceeded, withDeadline } from './with-deadline.js';

/**
 * Remembers that Redis is failing, so that requests stop waiting on it: while open, limits go
 * straight to the fallback (or to a 503 when failing closed) and a background probe pings
 * Redis until it answers. Only the requests in flight when Redis stops answering pay the
 * timeout; the ones after pay nothing.
 *
 * @internal
 */
export interface RedisCircuit {
  readonly open: boolean;
  /** The failure that opened it. */
  readonly reason: unknown;
  trip(reason: unknown): void;
  /** Redis answered a command sent outside the circuit (a readiness ping): close it now, not at the next probe. */
  answered(): void;
  dispose(): void;
}

export interface RedisCircuitOptions {
  ping(): Promise<unknown>;
  timeoutMs: number;
  probeIntervalMs?: number;
  onChange?(open: boolean, reason: unknown): void;
}

/** @internal */
export function createRedisCircuit(options: RedisCircuitOptions): RedisCircuit {
  const probeIntervalMs = options.probeIntervalMs ?? 250;
  let open = false;
  let reason: unknown;
  let timer: ReturnType<typeof setInterval> | undefined;
  let probing = false;

  function close(): void {
    if (!open) return;
    open = false;
    reason = undefined;
    clearInterval(timer);
    timer = undefined;
    options.onChange?.(false, undefined);
  }

  async function probe(): Promise<void> {
    if (probing) return;
    probing = true;
    try {
      if ((await withDeadline(options.ping(), options.timeoutMs)) === deadlineExceeded) return;
      close();
    } catch {
      // Still down; the next tick tries again.
    } finally {
      probing = false;
    }
  }

  return {
    get open() {
      return open;
    },
    get reason() {
      return reason;
    },
    trip(cause) {
      if (open) return;
      open = true;
      reason = cause;
      options.onChange?.(true, cause);
      timer = setInterval(() => void probe(), probeIntervalMs);
      timer.unref?.();
    },
    answered: close,
    dispose() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
