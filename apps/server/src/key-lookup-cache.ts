import type { KeyStore, ResolvedApiKey } from '@quantum-chat/access-control';

export interface KeyLookupCacheOptions {
  /** How long a found key is served from memory; 1000 ms by default. */
  ttlMs?: number;
  /** The most keys held; the oldest entry goes first. 1024 by default. */
  maxEntries?: number;
  /** The clock, for tests. */
  now?: () => number;
}

/**
 * The key store with `findKeyByHash` answered from memory for up to `ttlMs` (1 s) after a
 * lookup: a SQLite query (and its file-lock system calls) per chat request becomes one per key
 * per second. Only keys that exist are held, so a key created by the CLI works at once; a key
 * revoked (or an organisation changed) by another process, such as `quantum-chat keys revoke`,
 * takes effect within `ttlMs`, and at once when done through this store. Bounded, so that
 * requests with many distinct keys cannot grow it.
 *
 * @example
 * const store = cacheKeyLookups(openKeyStore(config, cwd));
 */
export function cacheKeyLookups(store: KeyStore, options: KeyLookupCacheOptions = {}): KeyStore {
  const ttlMs = options.ttlMs ?? 1000;
  const maxEntries = options.maxEntries ?? 1024;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { found: ResolvedApiKey; expiresAt: number }>();

  return {
    ...store,
    async findKeyByHash(hash) {
      const time = now();
      const entry = entries.get(hash);
      if (entry !== undefined && entry.expiresAt > time) return entry.found;
      entries.delete(hash);
      const found = await store.findKeyByHash(hash);
      if (found === undefined) return undefined;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(hash, { found, expiresAt: time + ttlMs });
      return found;
    },
    async revokeKey(id) {
      try {
        return await store.revokeKey(id);
      } finally {
        entries.clear();
      }
    },
    async updateOrganisation(name, change) {
      try {
        return await store.updateOrganisation(name, change);
      } finally {
        entries.clear();
      }
    },
  };
}
