import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lastLine, runBuiltCli } from './run-cli.js';
import { eventLoopProbeEnv, readEventLoopProbe } from './event-loop-probe.js';
import { startServerProcess } from './server-process.js';

const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

/** Another process that takes the database's write lock and holds it until told to let go (a line on stdin). */
async function holdWriteLock(path: string): Promise<{ release(): Promise<void> }> {
  const script = `
    const Database = require(${JSON.stringify(betterSqlite3)});
    const db = new Database(${JSON.stringify(path)}, { timeout: 10000 });
    db.exec('BEGIN IMMEDIATE');
    db.prepare("INSERT INTO organisations (name, plan, created_at) VALUES ('lock-holder', 'free', 0)").run();
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
  });
  return {
    async release() {
      child.stdin!.write('go\n');
      await exited;
    },
  };
}

async function chat(origin: string, key: string): Promise<number> {
  const response = await fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 16 }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function totalRequests(dataDir: string, organisation: string): Promise<number> {
  const { stdout } = await runBuiltCli(['usage', '--org', organisation, '--json', '--data-dir', dataDir]);
  return (JSON.parse(stdout) as { requests: number }[]).reduce((sum, row) => sum + row.requests, 0);
}

describe('the SQLite store under another process\'s write lock (a real server process)', { timeout: 120_000 }, () => {
  it('should keep /healthz answering while the lock is held, refuse to acknowledge answers whose usage cannot commit (503 store_unavailable), and write their rows once it is released', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'quantum-chat-lock-')), 'data');
    onTestFinished(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));
    // A free organisation: its daily quota is counted in the store too.
    const key = lastLine((await runBuiltCli(['keys', 'create', '--org', 'locked', '--plan', 'free', '--data-dir', dataDir])).stdout);
    // A short commit timeout: an answer whose usage row cannot commit is refused after it (decisions §6).
    const server = await startServerProcess({ dataDir, store: { usageFlushIntervalMs: 100, usageCommitTimeoutMs: 300 } }, eventLoopProbeEnv());
    onTestFinished(() => server.dispose());
    // The key is now cached: requests on it need no store lookup while the lock is held.
    expect(await chat(server.origin, key)).toBe(200);
    await sleep(300);
    expect(await totalRequests(dataDir, 'locked')).toBe(1);

    const lock = await holdWriteLock(join(dataDir, 'quantum-chat.sqlite'));
    await readEventLoopProbe(server);
    const probes: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const started = performance.now();
        const response = await fetch(`${server.origin}/healthz`);
        await response.arrayBuffer();
        probes.push(performance.now() - started);
        await sleep(10);
      }
    })();
    const statuses: number[] = [];
    for (let round = 0; round < 8; round++) statuses.push(...(await Promise.all([chat(server.origin, key), chat(server.origin, key), chat(server.origin, key)])));
    await sleep(1500);
    probing = false;
    await probe;
    const held = await readEventLoopProbe(server);
    // Nothing could be written while the lock was held.
    expect(await totalRequests(dataDir, 'locked')).toBe(1);
    await lock.release();

    // The key was cached, so every request ran; none could be acknowledged while its row could not commit.
    expect(statuses.every((status) => status === 503)).toBe(true);
    console.info(
      `/healthz under a held SQLite write lock: ${probes.length} probes, p50 ${percentile(probes, 50).toFixed(1)} ms, p99 ${percentile(probes, 99).toFixed(1)} ms, slowest ${[...probes].sort((a, b) => b - a).slice(0, 4).map((ms) => ms.toFixed(0)).join(', ')} ms; ` +
        `the server's event loop held at most ${held.cpuMs.toFixed(1)} ms of work (${held.elapsedMs.toFixed(1)} ms elapsed, ${held.waitMs.toFixed(1)} ms of it waiting for a core)`,
    );
    // Probes kept being answered while the lock was held, and no stretch of work held the
    // server's event loop for 100 ms (its CPU time: a busy machine's waits are not the server's).
    expect(probes.length).toBeGreaterThanOrEqual(10);
    expect(held.cpuMs).toBeLessThan(100);
    // Delayed, never lost: every request is in the ledger (billed for what was produced) once the lock is gone.
    const deadline = Date.now() + 15_000;
    while ((await totalRequests(dataDir, 'locked')) < 1 + statuses.length && Date.now() < deadline) await sleep(200);
    expect(await totalRequests(dataDir, 'locked')).toBe(1 + statuses.length);
  });

  it('should keep the data directory (0700) and the database files (0600) to their owner', async () => {
    const server = await startServerProcess();
    onTestFinished(() => server.dispose());
    expect(server.firstStartKey).toBeDefined();
    expect(statSync(server.dataDir).mode & 0o777).toBe(0o700);
    for (const file of ['quantum-chat.sqlite', 'quantum-chat.sqlite-wal', 'quantum-chat.sqlite-shm']) {
      expect(statSync(join(server.dataDir, file)).mode & 0o777, file).toBe(0o600);
    }
  });
});
