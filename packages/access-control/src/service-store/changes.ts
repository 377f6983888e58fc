// Changes to keys and organisations, heard by every process (so caches drop them).

/**
 * A change another instance (or the CLI) made to keys or organisations: cached lookups of it
 * must be dropped. `hash` names one key; `organisation` every key of one organisation.
 */
export type StoreChange = { kind: 'key'; hash: string } | { kind: 'organisation'; name: string } | { kind: 'reset' };

/** Where changes are heard. */
export interface ChangeFeed {
  /**
   * Calls `listener` when keys or organisations change, in this process or another one
   * (PostgreSQL: LISTEN/NOTIFY; SQLite: a change log polled every 100 ms). Returns the
   * unsubscribe function.
   */
  subscribe(listener: (change: StoreChange) => void): () => void;
}
