import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { redisServerAvailable, redisSkipMessage, startRedisServer } from '../../../packages/access-control/test/redis-server.js';
import { lastLine, runBuiltCli } from './run-cli.js';
import { startServerProcess } from './server-process.js';

if (!redisServerAvailable) console.warn(redisSkipMessage);

const heartbeatSeconds = 2;

describe.skipIf(!redisServerAvailable)('a resumable stream whose producing instance is killed', { timeout: 120_000 }, () => {
  it('should end its follower on another instance with stream_lost within the heartbeat plus 2 s, the ledger holding the produced tokens once', async () => {
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const dataDir = mkdtempSync(join(tmpdir(), 'quantum-chat-kill-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const key = lastLine((await runBuiltCli(['keys', 'create', '--org', 'killed', '--plan', 'elite', '--data-dir', dataDir])).stdout);
    const config = {
      dataDir,
      // Slow enough that the kill lands mid-stream.
      reference: { tokensPerSecond: 40 },
      streams: { heartbeatSeconds },
      store: { usageFlushIntervalMs: 50, abandonedAfterMs: 500 },
    };
    const [producer, follower] = await Promise.all([
      startServerProcess(config, { REDIS_URL: redis.url, LOG_LEVEL: 'warn' }),
      startServerProcess(config, { REDIS_URL: redis.url, LOG_LEVEL: 'warn' }),
    ]);
    onTestFinished(() => producer.dispose());
    onTestFinished(() => follower.dispose());

    const started = await fetch(`${producer.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'req_killed_producer' },
      body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Write a long essay about rivers.' }], max_tokens: 2000, stream: true, stream_options: { resumable: true } }),
    });
    expect(started.status).toBe(200);
    const id = started.headers.get('x-quantum-stream-id')!;
    // Follow it on the other instance (through Redis) from the start.
    const followed = await fetch(`${follower.origin}/v1/chat/completions/${id}/stream`, { headers: { authorization: `Bearer ${key}` } });
    expect(followed.status).toBe(200);
    const reader = followed.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!/^id: 8$/m.test(text)) {
      const step = await reader.read();
      expect(step.done).toBe(false);
      text += step.value;
    }
    // Under load: the producer is writing frames when it dies.
    producer.child.kill('SIGKILL');
    const killedAt = performance.now();
    void started.body?.cancel().catch(() => undefined);
    for (let step = await reader.read(); !step.done; step = await reader.read()) text += step.value;
    const endedAfterMs = performance.now() - killedAt;
    expect(endedAfterMs).toBeLessThan((heartbeatSeconds + 2) * 1000);
    expect(text).toMatch(/\nevent: error\ndata: \{"error":\{[^\n]*"code":"stream_lost"/);
    expect(text).not.toContain('[DONE]');
    // The frames before the end are the producer's, numbered without a gap.
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    const produced = ids.length - 1; // the first frame carries the role and a word too; one frame per token after it

    // The other instance settles the dead one's running row from its last progress count: once.
    const database = new Database(join(dataDir, 'quantum-chat.sqlite'), { readonly: true, fileMustExist: true });
    onTestFinished(() => {
      database.close();
    });
    const rows = () => database.prepare("SELECT completion_tokens AS completionTokens, settled, interrupted FROM usage WHERE request_id = 'req_killed_producer'").all() as Array<{ completionTokens: number; settled: number; interrupted: number }>;
    await expect.poll(() => rows()[0]?.settled, { timeout: 20_000, interval: 100 }).toBe(1);
    const charged = rows();
    expect(charged).toHaveLength(1);
    expect(charged[0]!.interrupted).toBe(1);
    // Progress rows are written every 50 ms: at most a few tokens behind what reached the follower.
    expect(charged[0]!.completionTokens).toBeGreaterThan(0);
    expect(charged[0]!.completionTokens).toBeLessThanOrEqual(produced + 5);
    console.log(`stream_lost ${Math.round(endedAfterMs)} ms after SIGKILL (heartbeat ${heartbeatSeconds} s); ${produced} frames produced, ${charged[0]!.completionTokens} completion tokens charged once`);
  });
});
