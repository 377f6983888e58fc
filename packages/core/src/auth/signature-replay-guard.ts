/**
 * Remembers signatures already accepted, so that each is accepted once (decisions §7). The
 * ready server shares one through Redis (`SET NX PX`) when it has Redis; anything with the same
 * contract can be plugged into the handler.
 */
export interface SignatureReplayGuard {
  /**
   * Records `signature` (`t=<t>,v1=<hex>`) for `ttlMs`: `true` the first time, `false` when it
   * was seen within that time (a replay).
   */
  claim(signature: string, ttlMs: number): boolean | Promise<boolean>;
}

/**
 * The default guard: in this process's memory, each entry kept until its time is up (the
 * tolerance window, after which the timestamp alone refuses the signature), and at most
 * `maxEntries` of them: when full, the entries closest to expiry go first.
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
    claim(signature, ttlMs) {
      const at = now();
      const expires = seen.get(signature);
      if (expires !== undefined && expires > at) return false;
      seen.delete(signature);
      for (const [oldest, until] of seen) {
        if (until > at && seen.size < maxEntries) break;
        seen.delete(oldest);
      }
      seen.set(signature, at + ttlMs);
      return true;
    },
  };
}
