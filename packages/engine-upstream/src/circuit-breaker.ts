/** When a deployment is taken out and how it comes back: see {@link createCircuitBreaker}. */
export interface CircuitBreakerOptions {
  /** Failures in a row that take the deployment out; 3 by default. */
  failureThreshold?: number;
  /** How long it stays out the first time; 5000 ms by default. Doubles after each failed probe. */
  cooldownMs?: number;
  /** The longest it stays out; 60000 ms by default. */
  maxCooldownMs?: number;
}

/** How much one failure counts toward the threshold, and of which request. */
export interface FailureWeight {
  /** 1 by default; less for a failure that may be the request's (a timeout on an unusually large prompt). */
  weight?: number;
  /**
   * What the failing request asked (a digest of its content): a request already counted since
   * the breaker last closed counts no more, so one request sent again and again opens nothing.
   */
  fingerprint?: string;
}

/** `closed`: in use. `open`: taken out. `half-open`: out, but one request may probe it. */
export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreaker {
  /** The state at `now`: an open breaker whose time is up is half-open. */
  state(now: number): CircuitState;
  /**
   * Whether a request may go now: always when closed; when half-open, only while no probe is
   * out (that request is the probe).
   */
  allows(now: number): boolean;
  /** A request is sent: when half-open it is the probe. */
  started(now: number): void;
  /** The deployment answered: a successful probe puts it back in. */
  succeeded(): void;
  /**
   * The deployment failed (unreachable, 5xx, 429, no first token in time). `retryAfterMs`, when
   * it said how long to wait, keeps it out at least that long even below the threshold. `how`
   * weighs the failure; a fingerprint already counted is taken as `released()`.
   */
  failed(now: number, retryAfterMs?: number, how?: FailureWeight): void;
  /** A request ended without saying anything of the deployment's health (the client left, a 4xx). */
  released(): void;
  /** When an open breaker lets a probe through. */
  reopensAt(): number;
}

/** Enough to tell apart the requests of several thresholds' worth of failures. */
const rememberedFingerprints = 32;

/**
 * A circuit breaker for one deployment: after `failureThreshold` failures in a row (of distinct
 * requests, each weighed, see {@link FailureWeight}) it opens
 * (the pool sends nothing there) for a cooldown, then lets one real request through as a probe.
 * The probe's success closes it; its failure opens it again for twice as long (up to
 * `maxCooldownMs`). A failure that came with `retry-after` keeps it out at least that long.
 *
 * @example
 * const breaker = createCircuitBreaker({ failureThreshold: 3, cooldownMs: 5000 });
 * if (breaker.allows(Date.now())) breaker.started(Date.now());
 */
export function createCircuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  const threshold = Math.max(1, options.failureThreshold ?? 3);
  const baseCooldown = Math.max(0, options.cooldownMs ?? 5_000);
  const maxCooldown = Math.max(baseCooldown, options.maxCooldownMs ?? 60_000);
  let failures = 0;
  /** The fingerprints counted since the breaker last closed (the newest few). */
  const counted: string[] = [];
  /** Out until then (0: in). */
  let outUntil = 0;
  let cooldown = baseCooldown;
  let tripped = false;
  let probing = false;

  const state = (now: number): CircuitState => (now < outUntil ? 'open' : tripped ? 'half-open' : 'closed');

  return {
    state,
    allows(now) {
      const current = state(now);
      return current === 'closed' || (current === 'half-open' && !probing);
    },
    started(now) {
      if (state(now) === 'half-open') probing = true;
    },
    succeeded() {
      failures = 0;
      counted.length = 0;
      tripped = false;
      probing = false;
      outUntil = 0;
      cooldown = baseCooldown;
    },
    failed(now, retryAfterMs, how = {}) {
      const fingerprint = how.fingerprint;
      if (fingerprint !== undefined) {
        if (counted.includes(fingerprint)) {
          probing = false;
          return;
        }
        counted.push(fingerprint);
        if (counted.length > rememberedFingerprints) counted.shift();
      }
      failures += how.weight ?? 1;
      const wasProbe = probing;
      probing = false;
      if (wasProbe || (tripped && now >= outUntil)) {
        // A failed probe: out again, for longer.
        cooldown = Math.min(maxCooldown, Math.max(cooldown * 2, baseCooldown));
        outUntil = now + cooldown;
      } else if (failures >= threshold && !tripped) {
        tripped = true;
        outUntil = now + cooldown;
      }
      if (retryAfterMs !== undefined && retryAfterMs > 0) {
        tripped = true;
        outUntil = Math.max(outUntil, now + Math.min(retryAfterMs, maxCooldown));
      }
    },
    released() {
      // The probe said nothing: the next request probes again.
      probing = false;
    },
    reopensAt: () => outUntil,
  };
}
