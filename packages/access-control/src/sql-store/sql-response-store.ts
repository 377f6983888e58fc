import type { ResponseStore } from '@quantum-chat/core/responses';

export interface SqlResponseStoreOptions {
  /** The clock expiry is read against (ms since the epoch); the service store's, or `Date.now`. */
  now?: () => number;
  /** How often expired responses are deleted; 60 000 ms by default. */
  purgeIntervalMs?: number;
}

/** A SQL response store: the contract, and the purge its timer runs (callable too, by tests or a job). */
export interface SqlResponseStore extends ResponseStore {
  /** Deletes one batch of expired responses (and their items); resolves with how many. */
  purgeExpired(): Promise<number>;
  /** Stops the purge (waiting for a run under way); closes the connection if the store opened it. */
  close(): Promise<void>;
}
