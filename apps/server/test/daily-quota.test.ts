import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore, issueApiKey } from '@quantum-chat/access-control';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startServerProcess, type ServerProcess } from './server-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const today = () => new Date().toISOString().slice(0, 10);

async function chat(server: ServerProcess, key: string): Promise<{ status: number; code?: string; tokens: number }> {
  const response = await fetch(`${server.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    // The answer is longer than 24 tokens: each request uses exactly what it reserves.
    body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Explain daily quotas in a few sentences.' }], max_tokens: 24 }),
  });
  const body = (await response.json()) as { usage?: { total_tokens: number }; error?: { code: string } };
  return { status: response.status, tokens: body.usage?.total_tokens ?? 0, ...(body.error ? { code: body.error.code } : {}) };
}

/** A data directory holding a free organisation with no per-minute limits, and a key of it. */
async function setUp(): Promise<{ dataDir: string; key: string; setDailyLimit(tokens: number): Promise<void>; dayCount(): Promise<number> }> {
  const root = mkdtempSync(join(tmpdir(), 'quantum-chat-daily-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const dataDir = join(root, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const store = createSqliteStore(join(dataDir, 'quantum-chat.sqlite'));
  onTestFinished(() => store.close());
  await store.createOrganisation({ name: 'capped', plan: 'free', limits: { requestsPerMinute: null, tokensPerMinute: null } });
  const { key } = await issueApiKey(store, { organisation: 'capped', kind: 'live' });
  return {
    dataDir,
    key,
    // Running servers hear the change through the store's change log.
    setDailyLimit: async (tokens) => void (await store.updateOrganisation('capped', { limits: { tokensPerDay: tokens } })),
    dayCount: () => store.readDailyTokens({ bucket: 'capped:live', day: today() }),
  };
}

describe('the daily token quota lives in the store (real server processes, SQLite)', { timeout: 120_000 }, () => {
  it('should hold across a restart: a new process does not give the day again', async () => {
    const { dataDir, key, setDailyLimit, dayCount } = await setUp();
    const first = await startServerProcess({ dataDir, store: { usageFlushIntervalMs: 50 } });
    onTestFinished(() => first.dispose());
    const { tokens: perRequest } = await chat(first, key);
    await setDailyLimit(perRequest * 3 + Math.floor(perRequest / 2));
    await sleep(300);
    const statuses = [(await chat(first, key)).status, (await chat(first, key)).status, (await chat(first, key)).status];
    expect(statuses).toEqual([200, 200, 429]);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServerProcess({ dataDir });
    onTestFinished(() => second.dispose());
    expect(await chat(second, key)).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(await dayCount()).toBe(perRequest * 3);
  });

  it('should be one count for two instances sharing the store without Redis', async () => {
    const { dataDir, key, setDailyLimit, dayCount } = await setUp();
    const servers = await Promise.all([startServerProcess({ dataDir }), startServerProcess({ dataDir })]);
    for (const server of servers) onTestFinished(() => server.dispose());
    const { tokens: perRequest } = await chat(servers[0]!, key);
    await setDailyLimit(perRequest * 8 + Math.floor(perRequest / 2));
    await sleep(300);
    const results = await Promise.all(Array.from({ length: 24 }, (_, index) => chat(servers[index % 2]!, key)));
    // Seven more fit the day, across both instances together (not seven each).
    expect(results.filter((result) => result.status === 200)).toHaveLength(7);
    expect(results.filter((result) => result.status === 429).every((result) => result.code === 'insufficient_quota')).toBe(true);
    expect(await dayCount()).toBe(perRequest * 8);
  });

  it('should, with daily leases, ask for shares far from the limit, be exact at it, and give every share back', async () => {
    const { dataDir, key, setDailyLimit, dayCount } = await setUp();
    const config = { dataDir, limits: { dailyLeases: true } };
    const servers = await Promise.all([startServerProcess(config), startServerProcess(config)]);
    for (const server of servers) onTestFinished(() => server.dispose());
    const first = await Promise.all(Array.from({ length: 20 }, (_, index) => chat(servers[index % 2]!, key)));
    expect(first.every((result) => result.status === 200)).toBe(true);
    const used = first.reduce((total, result) => total + result.tokens, 0);
    const perRequest = first[0]!.tokens;
    // Far from the free plan's 1,000,000 tokens a day: the instances hold shares beyond what their requests used
    // (up to 32 times the reservations that took them).
    const held = (await dayCount()) - used;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(32 * used);

    // Near the limit there are no shares: 24 requests at once across both instances, and seven more fit.
    await setDailyLimit(used + perRequest * 7 + Math.floor(perRequest / 2));
    // The shares taken under the old limit go back once unused for a second (or with their instance's next reservation).
    await sleep(2500);
    expect(await dayCount()).toBe(used);
    const results = await Promise.all(Array.from({ length: 24 }, (_, index) => chat(servers[index % 2]!, key)));
    expect(results.filter((result) => result.status === 200)).toHaveLength(7);
    expect(results.filter((result) => result.status === 429).every((result) => result.code === 'insufficient_quota')).toBe(true);
    expect(await dayCount()).toBe(used + perRequest * 7);

    // A stopped instance gives its share back: a higher limit, a share taken, a graceful stop.
    await setDailyLimit(1_000_000);
    await sleep(300);
    expect((await chat(servers[0]!, key)).status).toBe(200);
    expect(await dayCount()).toBeGreaterThan(used + perRequest * 8);
    servers[0]!.child.kill('SIGTERM');
    await servers[0]!.exited;
    expect(await dayCount()).toBe(used + perRequest * 8);
  });

  it('should, with daily leases, admit nothing past the limit when an instance holding a share is killed under load', async () => {
    const { dataDir, key, setDailyLimit, dayCount } = await setUp();
    const config = { dataDir, limits: { dailyLeases: true } };
    const servers = await Promise.all([startServerProcess(config), startServerProcess(config)]);
    for (const server of servers) onTestFinished(() => server.dispose());
    const { tokens: perRequest } = await chat(servers[0]!, key);
    const limit = perRequest * 80 + Math.floor(perRequest / 2);
    await setDailyLimit(limit);
    await sleep(2500);
    // Eight clients back to back, alternating instances; the second is killed once 24 answers came.
    let answered = perRequest;
    let answers = 0;
    const statuses = new Set<string>();
    let killed = false;
    const client = async (index: number) => {
      for (let turn = 0; turn < 60; turn++) {
        const server = servers[(index + turn) % 2]!;
        if (server === servers[1] && killed) continue;
        const result = await chat(server, key).catch(() => undefined);
        if (result === undefined) continue;
        statuses.add(`${result.status} ${result.code ?? ''}`.trim());
        if (result.status === 200) {
          answered += result.tokens;
          if (++answers === 24) {
            killed = true;
            servers[1]!.child.kill('SIGKILL');
          }
        }
        if (result.status === 429 && killed) return;
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, index) => client(index)));
    expect(killed).toBe(true);
    expect([...statuses].sort()).toEqual(['200', '429 insufficient_quota']);
    // Every token answered was counted in the store before it was admitted: never past the limit.
    expect(answered).toBeLessThanOrEqual(limit);
    expect(await dayCount()).toBeLessThanOrEqual(limit);
    // What the store counts beyond the answers is the killed instance's share and its requests in flight.
    expect(await dayCount()).toBeGreaterThanOrEqual(answered);
  });
});
