import { createCircuitBreaker, type CircuitBreaker, type CircuitBreakerOptions, type CircuitState, type FailureWeight } from './circuit-breaker.js';

/** What the pool needs of a deployment. */
export interface PooledDeployment {
  /** Its share of the load relative to the others (1 by default): twice the weight, twice the requests at equal busyness. */
  weight?: number | undefined;
  /** The most requests it serves at once (unlimited by default); a full deployment is skipped. */
  maxConcurrency?: number | undefined;
}

/** A deployment's live figures, for logs, metrics and tests. */
interface DeploymentStatus {
  inFlight: number;
  state: CircuitState;
}

/** What `acquire` gives: the deployment and how to hand it back. */
export interface DeploymentLease<T> {
  deployment: T;
  /** The request got its answer from it (its breaker closes). */
  succeeded(): void;
  /** It failed (unreachable, 5xx, 429, no first token in time); `retryAfterMs` if it said so. */
  failed(retryAfterMs?: number, how?: FailureWeight): void;
  /** The request ended saying nothing of its health (the client left, a 4xx). */
  released(): void;
  /**
   * The request is done with it, but whose fault its failure was is known only later (once
   * the request's other attempts have ended): the verdict is given on what this returns.
   */
  withheld(): DeploymentVerdict;
}

/** The later verdict on a failure: the deployment's, or nothing said of it. */
export interface DeploymentVerdict {
  failed(retryAfterMs?: number, how?: FailureWeight): void;
  released(): void;
}

export interface DeploymentPool<T> {
  /**
   * The least busy deployment that may take a request now, not among `tried`: lowest in-flight
   * requests per unit of weight, skipping full ones and those taken out; `undefined` if none.
   */
  acquire(tried: ReadonlySet<T>): DeploymentLease<T> | undefined;
  /** When the first deployment taken out may be probed again (for a `retry-after`), or `undefined`. */
  nextReopening(): number | undefined;
  status(deployment: T): DeploymentStatus;
}

export interface DeploymentPoolOptions {
  breaker?: CircuitBreakerOptions;
  /** Off for a single deployment: with nowhere else to go, every request tries it. */
  useBreaker?: boolean;
  now?: () => number;
}

interface Slot<T> {
  deployment: T;
  weight: number;
  maxConcurrency: number;
  inFlight: number;
  breaker: CircuitBreaker | undefined;
}

/**
 * Routes requests across the deployments of one model by busyness, not in turn: each request
 * goes to the deployment with the fewest requests in flight per unit of weight, so a replica
 * that is slow (its streams last longer) gets fewer new ones. Equal scores go to the heavier
 * deployment, then in turn. Each deployment has a circuit breaker (see `createCircuitBreaker`).
 *
 * @example
 * const pool = createDeploymentPool(deployments, { breaker: { failureThreshold: 3 } });
 * const lease = pool.acquire(new Set());
 */
export function createDeploymentPool<T extends PooledDeployment>(deployments: readonly T[], options: DeploymentPoolOptions = {}): DeploymentPool<T> {
  const now = options.now ?? Date.now;
  const useBreaker = options.useBreaker ?? deployments.length > 1;
  const slots: Slot<T>[] = deployments.map((deployment) => ({
    deployment,
    weight: deployment.weight !== undefined && deployment.weight > 0 ? deployment.weight : 1,
    maxConcurrency: deployment.maxConcurrency !== undefined && deployment.maxConcurrency > 0 ? deployment.maxConcurrency : Number.POSITIVE_INFINITY,
    inFlight: 0,
    breaker: useBreaker ? createCircuitBreaker(options.breaker) : undefined,
  }));
  const byDeployment = new Map(slots.map((slot) => [slot.deployment, slot]));
  /** Where the scan for equal scores starts: moves on each time, so ties take turns. */
  let cursor = 0;

  function lease(slot: Slot<T>, at: number): DeploymentLease<T> {
    slot.inFlight++;
    slot.breaker?.started(at);
    return new SlotLease(slot, now);
  }

  return {
    acquire(tried) {
      const at = now();
      let best: Slot<T> | undefined;
      let bestScore = Number.POSITIVE_INFINITY;
      for (let offset = 0; offset < slots.length; offset++) {
        const slot = slots[(cursor + offset) % slots.length]!;
        if (tried.has(slot.deployment) || slot.inFlight >= slot.maxConcurrency) continue;
        if (slot.breaker !== undefined && !slot.breaker.allows(at)) continue;
        const score = (slot.inFlight + 1) / slot.weight;
        if (score < bestScore || (score === bestScore && best !== undefined && slot.weight > best.weight)) {
          best = slot;
          bestScore = score;
        }
      }
      if (best === undefined) return undefined;
      cursor = (cursor + 1) % slots.length;
      return lease(best, at);
    },
    nextReopening() {
      const at = now();
      let earliest: number | undefined;
      for (const slot of slots) {
        const reopens = slot.breaker?.reopensAt() ?? 0;
        if (reopens > at && (earliest === undefined || reopens < earliest)) earliest = reopens;
      }
      return earliest;
    },
    status(deployment) {
      const slot = byDeployment.get(deployment);
      if (slot === undefined) throw new Error('not a deployment of this pool');
      return { inFlight: slot.inFlight, state: slot.breaker?.state(now()) ?? 'closed' };
    },
  };
}

/**
 * One request's hold on a deployment, ended once, its failure judged once. A class: a waiting
 * stream holds one object, not a lease and a verdict of closures (about 0.7 KiB); a withheld
 * verdict is made only on the failure that needs it.
 */
class SlotLease<T> implements DeploymentLease<T> {
  readonly deployment: T;
  readonly #slot: Slot<T>;
  readonly #now: () => number;
  #ended = false;
  #judged = false;
  #verdict: DeploymentVerdict | undefined = undefined;

  constructor(slot: Slot<T>, now: () => number) {
    this.deployment = slot.deployment;
    this.#slot = slot;
    this.#now = now;
  }

  /** Ends the lease (once): false when it had ended already. */
  #end(): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    this.#slot.inFlight--;
    return true;
  }

  #judgeFailed(retryAfterMs?: number, how?: FailureWeight): void {
    if (this.#judged) return;
    this.#judged = true;
    this.#slot.breaker?.failed(this.#now(), retryAfterMs, how);
  }

  #judgeReleased(): void {
    if (this.#judged) return;
    this.#judged = true;
    this.#slot.breaker?.released();
  }

  succeeded(): void {
    if (this.#end()) this.#slot.breaker?.succeeded();
  }

  failed(retryAfterMs?: number, how?: FailureWeight): void {
    if (this.#end()) this.#judgeFailed(retryAfterMs, how);
  }

  released(): void {
    if (this.#end()) this.#judgeReleased();
  }

  withheld(): DeploymentVerdict {
    this.#end();
    return (this.#verdict ??= { failed: (retryAfterMs, how) => this.#judgeFailed(retryAfterMs, how), released: () => this.#judgeReleased() });
  }
}
