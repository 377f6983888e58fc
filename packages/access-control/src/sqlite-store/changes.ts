import type { ChangeFeed, StoreChange } from '../service-store/index.js';
import { tell, type SqliteContext } from './context.js';

/** @internal */
export interface SqliteChangeFeed extends ChangeFeed {
  /** Stops polling (the store is closing). */
  stop(): void;
}

/**
 * Other processes' changes, read from the `changes` table (filled by triggers) every
 * `pollMs`, while anyone listens.
 *
 * @internal
 */
export function createSqliteChangeFeed(context: SqliteContext, pollMs: number): SqliteChangeFeed {
  const { executor, statements, one, all, listeners } = context;
  let poller: ReturnType<typeof setInterval> | undefined;
  /** The last change seen; read at the first poll, so only later changes are reported. */
  let cursor: number | undefined;
  let polling = false;
  let polls = 0;

  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      if (cursor === undefined) {
        cursor = Number((await one(statements.changesCursor))!.id);
        return;
      }
      const rows = await all('SELECT id, kind, subject FROM changes WHERE id > ? ORDER BY id LIMIT 1000', [cursor]);
      if (rows.length === 0) return;
      cursor = Number(rows.at(-1)!.id);
      for (const row of rows) {
        const change: StoreChange = row.kind === 'key' ? { kind: 'key', hash: String(row.subject) } : { kind: 'organisation', name: String(row.subject) };
        tell(context, change);
      }
      // The log only needs to outlive the slowest poller; keep the last 10,000 changes.
      if (++polls % 100 === 0) await executor.execute([{ sql: 'DELETE FROM changes WHERE id <= ?', params: [Number(rows.at(-1)!.id) - 10_000], mode: 'run' }], { lockWaitMs: 0 });
    } catch {
      // The next tick tries again from the same cursor.
    } finally {
      polling = false;
    }
  }

  function stop(): void {
    clearInterval(poller);
    poller = undefined;
  }

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (poller === undefined) {
        cursor = undefined;
        void poll();
        poller = setInterval(() => void poll(), pollMs);
        poller.unref();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
    stop,
  };
}
