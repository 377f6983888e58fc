// Daily token counts, atomic across every process sharing the store.

/** What a daily reservation found: admitted (and counted), or refused (nothing counted). */
export interface DailyReservation {
  admitted: boolean;
  /** The day's count after the reservation (admitted) or as it stands (refused). */
  total: number;
}

/** What a daily reservation asks for. */
export interface DailyReservationInput {
  bucket: string;
  day: string;
  tokens: number;
  limit: number;
  /**
   * A synchronous commit of the same request (its settled usage row, before its answer) comes
   * later and makes this one durable with it: the store may then answer before the
   * reservation itself is on disk (PostgreSQL: without waiting for its WAL flush). Stores
   * whose commits do not wait for a disk flush anyway (SQLite in WAL mode, memory) ignore it.
   */
  flushedBySettle?: boolean;
}

/** Where the daily token counts live. */
export interface DailyQuotaStore {
  /**
   * Adds `tokens` to the day's count of `bucket` if it stays within `limit`, atomically
   * across every process sharing the store; counts nothing otherwise.
   */
  reserveDailyTokens(input: DailyReservationInput): Promise<DailyReservation>;
  /** Adds (or, negative, takes back) tokens to a day's count unconditionally. */
  addDailyTokens(input: { bucket: string; day: string; tokens: number }): Promise<void>;
  /** The day's count of `bucket` (0 when nothing was counted). */
  readDailyTokens(input: { bucket: string; day: string }): Promise<number>;
}
