import { QuantumChatError } from '@quantum-chat/core';
import type { ServiceStore, ResolvedApiKey, StoreChange } from './service-store/index.js';
import { createRedisCircuit } from './redis-circuit.js';
import { deadlineExceeded, withDeadline } from './with-deadline.js';

export interface KeyCacheOptions {
  store: ServiceStore;
  /** How long a looked-up key is trusted without asking the store again; 1000 ms by default. */
  ttlMs?: number;
  /** The most a lookup waits on the store; 1000 ms by default. */
  timeoutMs?: number;
  /** The most keys held; the least recently looked up goes first. 10,000 by default. */
  maxEntries?: number;
  now?: () => number;
  /** Reporting only: the store stopped or started answering lookups. */
  onStateChange?: (available: boolean, reason: unknown) => void;
}

export interface KeyCache {
  /** The key with this hash (revoked or not), or undefined; throws 503 `store_unavailable` when the store cannot say. */
  lookup(hash: string): Promise<ResolvedApiKey | undefined>;
  dispose(): void;
}

interface Entry {
  found: ResolvedApiKey;
  fetchedAt: number;
}

function storeUnavailable(cause: unknown): QuantumChatError {
  return new QuantumChatError('store_unavailable', 'The key store is not answering; retry the request shortly.', {
    cause,
    headers: { 'retry-after': '1', 'retry-after-ms': '1000' },
  });
}

/**
 * Key lookups from memory: a key found is trusted for `ttlMs` (1 s), so the store sees one
 * lookup per key per second, not one per request. Changes the store announces (a revocation,
 * an organisation's new plan or limits, from any instance or the CLI) drop entries at once;
 * the TTL bounds what a missed announcement can cost. When the store does not answer within
 * `timeoutMs`, keys already cached keep working and others get 503 `store_unavailable`; a
 * circuit then spares later requests the wait until a probe gets through. Unknown keys are
 * never held, so a key created elsewhere works at once.
 *
 * @example
 * const keys = createKeyCache({ store });
 * const found = await keys.lookup(hashApiKey(key));
 */
export function createKeyCache(options: KeyCacheOptions): KeyCache {
  const { store } = options;
  const ttlMs = options.ttlMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const circuit = createRedisCircuit({
    ping: () => store.ping(),
    timeoutMs,
    onChange: (open, reason) => options.onStateChange?.(!open, reason),
  });

  /** Bumped by every change heard: a lookup that started before one must not cache its answer. */
  let generation = 0;

  function forget(change: StoreChange): void {
    generation++;
    if (change.kind === 'key') entries.delete(change.hash);
    else if (change.kind === 'reset') entries.clear();
    else for (const [hash, entry] of entries) if (entry.found.organisation.name === change.name) entries.delete(hash);
  }
  const unsubscribe = store.subscribe(forget);

  function remember(hash: string, found: ResolvedApiKey): void {
    entries.delete(hash);
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(hash, { found, fetchedAt: now() });
  }

  function fallback(hash: string, cause: unknown): ResolvedApiKey {
    const entry = entries.get(hash);
    if (entry === undefined) throw storeUnavailable(cause);
    return entry.found;
  }

  return {
    async lookup(hash) {
      const entry = entries.get(hash);
      if (entry !== undefined && now() - entry.fetchedAt < ttlMs) return entry.found;
      if (circuit.open) return fallback(hash, circuit.reason);
      let found: ResolvedApiKey | undefined | typeof deadlineExceeded;
      const startedAt = generation;
      try {
        found = await withDeadline(store.findKeyByHash(hash), timeoutMs);
      } catch (error) {
        circuit.trip(error);
        return fallback(hash, error);
      }
      if (found === deadlineExceeded) {
        const error = new Error(`The store did not answer a key lookup within ${timeoutMs} ms.`);
        circuit.trip(error);
        return fallback(hash, error);
      }
      if (found === undefined || startedAt !== generation) entries.delete(hash);
      else remember(hash, found);
      return found;
    },
    dispose() {
      unsubscribe();
      circuit.dispose();
    },
  };
}
