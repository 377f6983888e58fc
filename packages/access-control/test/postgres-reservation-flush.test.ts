import { describe, expect, it, onTestFinished } from 'vitest';
import { postgresContextOf } from '../src/postgres-store/context.js';
import { createPostgresStore } from '../src/postgres-store/index.js';
import type { UsageRecord } from '../src/service-store/index.js';
import { timeOrderedUsageId } from '../src/usage-id.js';
import { postgresAvailable, postgresSkipMessage, startPostgresServer } from './postgres-server.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);

const day = '2030-02-01';
const bucket = 'flush:live';
/** Requests per phase: enough that a flush per request stands far apart from the WAL writer's own few. */
const requests = 60;

describe.skipIf(!postgresAvailable)('PostgreSQL: a reservation flushed by its settle (synchronous_commit on, fsync on)', () => {
  it('should not wait for its own WAL flush, while the settle on the same connection still does', { timeout: 60_000 }, async (context) => {
    const server = await startPostgresServer({ flushedCommits: true });
    onTestFinished(() => server.stop());
    // One connection: the settle runs where the relaxed reservation ran, so a setting outliving its statement would show.
    const store = createPostgresStore(await server.createDatabase(), { maxConnections: 1 });
    onTestFinished(() => store.close());
    await store.migrate();
    const { sql } = postgresContextOf(store)!;
    // The WAL counts are read through `pg_stat_force_next_flush`, PostgreSQL 15 on.
    if (Number((await sql`SHOW server_version_num`)[0]!.server_version_num) < 150_000) context.skip('needs PostgreSQL 15 or later (pg_stat_force_next_flush)');
    /** WAL flushes (fsync) of the whole cluster so far, this connection's own counts included. */
    const walSyncs = async () => {
      await sql`SELECT pg_stat_force_next_flush()`;
      await sql`SELECT 1`;
      return Number((await sql`SELECT wal_sync FROM pg_stat_wal`)[0]!.wal_sync);
    };
    const settledRow = (tokens: number): UsageRecord => ({
      usageId: timeOrderedUsageId(Date.now()), requestId: 'flush', keyId: 'key_flush', organisation: 'flush', model: 'quantum-lite',
      promptTokens: tokens, completionTokens: 0, status: 200, interrupted: false, settled: true, timestamp: Date.now(),
      daily: { bucket, day, charged: tokens },
    });

    // Each reservation as the connection commits it: a flush each.
    let before = await walSyncs();
    for (let index = 0; index < requests; index++) await store.reserveDailyTokens({ bucket, day, tokens: 10, limit: 1_000_000 });
    const flushedEach = (await walSyncs()) - before;

    before = await walSyncs();
    for (let index = 0; index < requests; index++) {
      expect(await store.reserveDailyTokens({ bucket, day, tokens: 10, limit: 1_000_000, flushedBySettle: true })).toMatchObject({ admitted: true });
    }
    const relaxedAlone = (await walSyncs()) - before;

    // A reservation, then its settled row, as a durable request does: the row's commit still flushes.
    before = await walSyncs();
    for (let index = 0; index < requests; index++) {
      await store.reserveDailyTokens({ bucket, day, tokens: 10, limit: 1_000_000, flushedBySettle: true });
      await store.writeUsage([settledRow(10)]);
    }
    const withSettles = (await walSyncs()) - before;

    console.log(`${requests} reservations: ${flushedEach} WAL flushes as configured, ${relaxedAlone} flushed by settle; with their settles: ${withSettles}`);
    expect(flushedEach).toBeGreaterThanOrEqual(requests * 0.9);
    expect(relaxedAlone).toBeLessThan(requests / 2);
    expect(withSettles).toBeGreaterThanOrEqual(requests * 0.9);
    expect((await sql`SHOW synchronous_commit`)[0]!.synchronous_commit).toBe('on');
    // The day: every reservation counted, the settled ones corrected to their use (the same here).
    expect(await store.readDailyTokens({ bucket, day })).toBe(3 * requests * 10);
  });

  it('should refuse what does not fit, counting nothing, whichever the commit', { timeout: 60_000 }, async () => {
    const server = await startPostgresServer({ flushedCommits: true });
    onTestFinished(() => server.stop());
    const store = createPostgresStore(await server.createDatabase());
    onTestFinished(() => store.close());
    for (const flushedBySettle of [false, true]) {
      const at = `2030-02-0${flushedBySettle ? 3 : 2}`;
      expect(await store.reserveDailyTokens({ bucket, day: at, tokens: 101, limit: 100, flushedBySettle })).toEqual({ admitted: false, total: 0 });
      expect(await store.reserveDailyTokens({ bucket, day: at, tokens: 60, limit: 100, flushedBySettle })).toEqual({ admitted: true, total: 60 });
      expect(await store.reserveDailyTokens({ bucket, day: at, tokens: 60, limit: 100, flushedBySettle })).toEqual({ admitted: false, total: 60 });
      expect(await store.reserveDailyTokens({ bucket, day: at, tokens: 40, limit: 100, flushedBySettle })).toEqual({ admitted: true, total: 100 });
    }
  });
});
