import { QuantumChatError } from '../errors/quantum-chat-error.js';

/**
 * Remembers signed content already accepted, so that each is accepted once (decisions §7). The
 * ready server shares one through Redis (`SET NX PX`) when it has Redis; anything with the same
 * contract can be plugged into the handler.
 */
export interface SignatureReplayGuard {
  /**
   * Records `claim` (`signedContentClaim`: the timestamp, key and body digest) for `ttlMs`:
   * `true` the first time, `false` when it was seen within that time (a replay). A guard that
   * cannot remember one more claim throws (`replayGuardFull`) rather than forget a valid one.
   */
  claim(claim: string, ttlMs: number): boolean | Promise<boolean>;
}

/**
 * The refusal of a guard that is full: 503 `overloaded`, to come back once its oldest claim
 * expires. Forgetting a claim still valid would let its signature be replayed.
 */
export function replayGuardFull(retryAfterMs: number): QuantumChatError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new QuantumChatError('overloaded', 'Too many signed requests within the signature tolerance window: the replay guard is full. Retry later.', {
    headers: { 'retry-after': String(seconds) },
  });
}

/**
 * The default guard: in this process's memory, each entry kept until its time is up (the
 * tolerance window, after which the timestamp alone refuses the signature), and at most
 * `maxEntries` of them: when all are still valid, a new claim is refused (503 with
 * `retry-after`), never made room for by forgetting one.
 *
 * @example
 * createChatHandler({ engine, accessControl, signingSecrets: [secret], signatureReplayGuard: createMemoryReplayGuard() });
 */
export function createMemoryReplayGuard(options: { maxEntries?: number; now?: () => number } = {}): SignatureReplayGuard {
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  // Insertion order is expiry order: every entry lives the same tolerance window.
  const seen = new Map<string, number>();
  return {
    claim(claim, ttlMs) {
      const at = now();
      const expires = seen.get(claim);
      if (expires !== undefined && expires > at) return false;
      seen.delete(claim);
      for (const [oldest, until] of seen) {
        if (until > at) {
          if (seen.size < maxEntries) break;
          throw replayGuardFull(until - at);
        }
        seen.delete(oldest);
      }
      seen.set(claim, at + ttlMs);
      return true;
    },
  };
}
