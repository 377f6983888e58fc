/** Expired responses deleted per statement: a purge never holds the write lock for long. */
export const purgeBatchSize = 200;

/** Batches per run: a backlog is worked off over several runs, never in one long burst. */
const maxBatchesPerRun = 25;

/** @internal */
export interface ResponsePurge {
  /** Stops the timer and waits for a run under way. */
  stop(): Promise<void>;
}

/**
 * Deletes expired responses every `intervalMs`, in bounded batches, on a timer that never keeps
 * the process alive. `deleteBatch` deletes up to `purgeBatchSize` and says how many it deleted;
 * a failed run (the store is down, a lock) is simply tried again at the next tick.
 *
 * @internal
 */
export function startResponsePurge(deleteBatch: () => Promise<number>, intervalMs: number): ResponsePurge {
  let running: Promise<void> | undefined;
  let stopped = false;

  async function run(): Promise<void> {
    for (let batch = 0; batch < maxBatchesPerRun && !stopped; batch++) {
      if ((await deleteBatch()) < purgeBatchSize) return;
    }
  }

  const timer = setInterval(() => {
    if (running !== undefined) return;
    running = run()
      .catch(() => undefined)
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
