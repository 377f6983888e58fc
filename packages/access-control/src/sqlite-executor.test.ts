import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSqliteExecutor, type SqliteExecutor } from './sqlite-executor.js';

const migrations = ['CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL) STRICT;'];
const insert = (id: number, text: string) => ({ sql: 'INSERT INTO notes (id, text) VALUES (?, ?)', params: [id, text], mode: 'run' as const });
const readAll = { sql: 'SELECT id, text FROM notes ORDER BY id', mode: 'all' as const };

describe('startSqliteExecutor', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function start(): { executor: SqliteExecutor; path: string } {
    const dir = mkdtempSync(join(tmpdir(), 'quantum-sqlite-executor-'));
    const path = join(dir, 'store.sqlite');
    const executor = startSqliteExecutor(path, migrations);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => executor.close());
    return { executor, path };
  }

  /** Another process's connection holding the write lock (an open IMMEDIATE transaction) until its `COMMIT`. */
  function holdWriteLock(path: string): { exec(sql: string): void } {
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => { exec(sql: string): void; close(): void };
    const other = new Database(path);
    cleanups.push(() => other.close());
    other.exec('BEGIN IMMEDIATE');
    return other;
  }

  it('should send the calls of one turn in one message, and answer them in one message', async () => {
    const { executor } = start();
    await executor.migrate();
    const before = { ...executor.messages };
    const writes = Array.from({ length: 20 }, (_, index) => executor.execute([insert(index + 1, `note ${index + 1}`)], { transaction: true }));
    const read = executor.execute([readAll]);
    const results = await Promise.all([...writes, read]);
    expect(executor.messages.sent - before.sent).toBe(1);
    expect(executor.messages.received - before.received).toBe(1);
    expect(results.slice(0, 20)).toEqual(Array.from({ length: 20 }, () => [{ changes: 1 }]));
    expect(results[20]![0]).toHaveLength(20);
  });

  it('should keep at most two messages in the worker, holding the calls made meanwhile, over several turns, for the next one', async () => {
    const { executor } = start();
    await executor.migrate();
    const before = { ...executor.messages };
    // A slow first message: the worker is busy with it while the next calls are made.
    const slow = executor.execute([{ sql: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT count(*) AS c FROM n', mode: 'get' }]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(executor.messages.sent - before.sent).toBe(1);
    const later: Promise<unknown[]>[] = [];
    for (let turn = 0; turn < 6; turn++) {
      later.push(executor.execute([insert(turn + 1, `turn ${turn}`)], { transaction: true }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The first of them went on its own, queued behind the slow one; the other five wait.
    expect(executor.messages.sent - before.sent).toBe(2);
    expect(await slow).toEqual([{ c: 3_000_000 }]);
    expect(await Promise.all(later)).toEqual(Array.from({ length: 6 }, () => [{ changes: 1 }]));
    expect(executor.messages.sent - before.sent).toBe(3);
    expect(executor.messages.received - before.received).toBe(3);
  });

  it('should answer each call of a message on its own: a failing call rejects alone and rolls back only its own transaction', async () => {
    const { executor } = start();
    await executor.migrate();
    const first = executor.execute([insert(1, 'kept')], { transaction: true });
    const failing = executor.execute([insert(2, 'rolled back'), insert(1, 'duplicate id')], { transaction: true });
    const read = executor.execute([readAll]);
    await expect(first).resolves.toEqual([{ changes: 1 }]);
    await expect(failing).rejects.toMatchObject({ name: 'SqliteError', code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect((await read)[0]).toEqual([{ id: 1, text: 'kept' }]);
  });

  it('should answer the other calls of a message while one of them waits for another process to release the write lock', async () => {
    const { executor, path } = start();
    await executor.migrate();
    const other = holdWriteLock(path);
    let written = false;
    const write = executor.execute([insert(1, 'after the lock')], { transaction: true, lockWaitMs: 5000 }).then((result) => {
      written = true;
      return result;
    });
    const read = executor.execute([readAll]);
    // The read is answered (WAL: readers go on) while the write keeps retrying.
    expect((await read)[0]).toEqual([]);
    expect(written).toBe(false);
    other.exec('COMMIT');
    await expect(write).resolves.toEqual([{ changes: 1 }]);
    expect((await executor.execute([readAll]))[0]).toEqual([{ id: 1, text: 'after the lock' }]);
  });

  it('should send a statement by number after its first use, even while the call that carried its text waits for a lock', async () => {
    const { executor, path } = start();
    await executor.migrate();
    const countNotes = { sql: 'SELECT count(*) AS notes FROM notes', mode: 'get' as const };
    const other = holdWriteLock(path);
    // The first use of `countNotes` is in a transaction that waits for the lock (retried later)...
    const waiting = executor.execute([insert(1, 'after the lock'), countNotes], { transaction: true, lockWaitMs: 5000 });
    await new Promise((resolve) => setImmediate(resolve));
    // ...while a later message names it by number only, and is answered first.
    expect(await executor.execute([countNotes])).toEqual([{ notes: 0 }]);
    other.exec('COMMIT');
    expect(await waiting).toEqual([{ changes: 1 }, { notes: 1 }]);
    expect(await executor.execute([countNotes])).toEqual([{ notes: 1 }]);
  });

  it('should run statements past the numbered ones by their text', async () => {
    const { executor } = start();
    await executor.migrate();
    const distinct = Array.from({ length: 600 }, (_, index) => ({ sql: `SELECT ${index} AS n`, mode: 'get' as const }));
    expect(await executor.execute(distinct)).toEqual(distinct.map((_, index) => ({ n: index })));
    expect(await executor.execute(distinct.slice(-2))).toEqual([{ n: 598 }, { n: 599 }]);
  });

  it('should run a read marked ifPreviousNull only when the op before it answered null, alone or with other calls in one message', async () => {
    const { executor } = start();
    await executor.migrate();
    await executor.execute([insert(1, 'one')], { transaction: true });
    const byId = (id: number) => ({ sql: 'SELECT text FROM notes WHERE id = ?', params: [id], mode: 'get' as const });
    const fallback = { sql: 'SELECT count(*) AS notes FROM notes', mode: 'get' as const, ifPreviousNull: true as const };
    expect(await executor.execute([byId(1), fallback], { transaction: true })).toEqual([{ text: 'one' }, null]);
    expect(await executor.execute([byId(2), fallback], { transaction: true })).toEqual([null, { notes: 1 }]);
    expect(await executor.execute([byId(2), fallback])).toEqual([null, { notes: 1 }]);
    // Two transactional calls in one message commit together: each call's ops still follow the rule.
    const together = await Promise.all([
      executor.execute([insert(2, 'two'), byId(2), fallback], { transaction: true }),
      executor.execute([byId(3), fallback], { transaction: true }),
    ]);
    expect(together).toEqual([
      [{ changes: 1 }, { text: 'two' }, null],
      [null, { notes: 2 }],
    ]);
  });

  it('should commit the transactions of one message once: the pages they share are written to the WAL once, not once per call', async () => {
    const { executor, path } = start();
    await executor.migrate();
    await executor.execute([insert(1, 'first')], { transaction: true });
    const walBytes = () => statSync(`${path}-wal`).size;
    // One commit of one page: how much a commit adds to the WAL (a frame header and the page).
    const before = walBytes();
    await executor.execute([insert(2, 'second')], { transaction: true });
    const oneCommit = walBytes() - before;
    expect(oneCommit).toBeGreaterThan(0);
    const afterOne = walBytes();
    const writes = Array.from({ length: 20 }, (_, index) => executor.execute([insert(index + 10, `note ${index}`)], { transaction: true }));
    await Promise.all(writes);
    // Twenty calls in one message, every one on the same page: one commit's worth, not twenty.
    expect(walBytes() - afterOne).toBe(oneCommit);
    expect((await executor.execute([readAll]))[0]).toHaveLength(22);
  });

  it('should run the writes of one message in the order they were sent, transactional or not', async () => {
    const { executor } = start();
    await executor.migrate();
    await executor.execute([insert(1, 'x')], { transaction: true });
    const append = (suffix: string) => ({ sql: 'UPDATE notes SET text = text || ? WHERE id = 1', params: [suffix], mode: 'run' as const });
    await Promise.all([
      executor.execute([append('a')]),
      executor.execute([append('b')], { transaction: true }),
      executor.execute([append('c')]),
      executor.execute([append('d')], { transaction: true }),
    ]);
    expect((await executor.execute([readAll]))[0]).toEqual([{ id: 1, text: 'xabcd' }]);
  });

  it('should flush the WAL in the background after commits, once for a burst of them, and not while idle or only reading', async () => {
    const { executor } = start();
    await executor.migrate();
    /** The flushes done once none is waiting or under way. */
    const settled = async () => {
      for (;;) {
        const { done, pending } = await executor.walSyncs();
        if (!pending) return done;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const before = await settled();
    // A burst of commits in quick succession: one flush (or two, if the burst spans a delay), not one per commit.
    for (let index = 0; index < 20; index++) await executor.execute([insert(index + 1, `note ${index}`)], { transaction: true });
    const afterBurst = await settled();
    expect(afterBurst - before).toBeGreaterThanOrEqual(1);
    expect(afterBurst - before).toBeLessThan(20);
    // Reads commit nothing, and an idle store flushes nothing.
    await executor.execute([readAll]);
    expect(await executor.walSyncs()).toEqual({ done: afterBurst, pending: false });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await executor.walSyncs()).toEqual({ done: afterBurst, pending: false });
  });

  it('should flush nothing for a database in memory', async () => {
    const executor = startSqliteExecutor(':memory:', migrations);
    cleanups.push(() => executor.close());
    await executor.migrate();
    await executor.execute([insert(1, 'kept in memory')], { transaction: true });
    expect(await executor.walSyncs()).toEqual({ done: 0, pending: false });
  });
});
