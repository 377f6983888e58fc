import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startServerProcess } from './server-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a client that leaves before its non-streaming answer (a real process)', () => {
  it('should be logged, counted and recorded as client_closed (499), never as a 500', async () => {
    // Paced: the answer takes seconds, so the client leaves while the engine still works.
    const server = await startServerProcess({ reference: { tokensPerSecond: 20 }, store: { usageFlushIntervalMs: 50 } });
    onTestFinished(() => server.dispose());
    const requestId = 'req_leaves_early_1';
    const leaving = new AbortController();
    const request = fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.firstStartKey}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Tell me about the history of quantum computing in detail.' }] }),
      signal: leaving.signal,
    });
    await sleep(400);
    leaving.abort();
    await expect(request).rejects.toThrow();

    await server.waitForStdout(new RegExp(`"reqId":"${requestId}".*client closed`));
    const lines = server.stdout().split('\n').filter((line) => line.includes(requestId)).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => /client closed/.test(String(line.msg)))).toMatchObject({ level: 30, status: 499, outcome: 'client_closed', interrupted: true });
    expect(lines.filter((line) => Number(line.level) >= 50 || line.status === 500 || (line.res as { statusCode?: number } | undefined)?.statusCode === 500)).toEqual([]);

    const metrics = await (await fetch(`${server.origin}/metrics`)).text();
    expect(metrics).toMatch(/quantum_chat_requests_total\{model="quantum-lite",status="499",stream="false"\} 1/);
    expect(metrics).not.toMatch(/quantum_chat_requests_total\{[^}]*status="500"/);

    const database = new Database(join(server.dataDir, 'quantum-chat.sqlite'), { readonly: true, fileMustExist: true });
    onTestFinished(() => {
      database.close();
    });
    const row = () => database.prepare('SELECT status, interrupted, completion_tokens AS completionTokens FROM usage WHERE request_id = ?').get(requestId) as { status: number; interrupted: number; completionTokens: number } | undefined;
    await expect.poll(() => row()?.status, { timeout: 10_000, interval: 50 }).toBe(499);
    // Charged for what was produced before the client left.
    expect(row()).toMatchObject({ interrupted: 1 });
    expect(row()!.completionTokens).toBeGreaterThan(0);
  }, 60_000);
});
