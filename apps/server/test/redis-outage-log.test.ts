import { describe, expect, it, onTestFinished } from 'vitest';
import { redisServerAvailable, redisSkipMessage, startRedisServer } from '../../../packages/access-control/test/redis-server.js';
import { startServerProcess } from './server-process.js';

if (!redisServerAvailable) console.warn(redisSkipMessage);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (text: string, pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line)).length;

/** A Redis server and a ready-server process sharing its rate limits through it, both stopped when the test ends. */
async function startServerWithRedis() {
  const redis = await startRedisServer();
  onTestFinished(() => redis.stop());
  const server = await startServerProcess({}, { REDIS_URL: redis.url });
  onTestFinished(() => server.dispose());
  await server.waitForStdout(/rate limits shared through redis/);
  return { redis, server };
}

describe.skipIf(!redisServerAvailable)('quantum-chat serve with Redis', () => {
  it('should log a Redis killed while the server is idle once (warn), and once when it is back', async () => {
    const { redis, server } = await startServerWithRedis();

    await redis.kill();
    await server.waitForStdout(/redis unavailable/);
    // Reconnection attempts go on meanwhile: still one line.
    await sleep(1500);
    const down = server.stdout().split('\n').find((line) => /redis unavailable/.test(line))!;
    expect(JSON.parse(down)).toMatchObject({ level: 40 });
    expect(count(server.stdout(), /redis unavailable/)).toBe(1);

    await redis.restart();
    await server.waitForStdout(/redis is back/);
    await sleep(500);
    expect(count(server.stdout(), /redis is back/)).toBe(1);
    expect(count(server.stdout(), /redis unavailable/)).toBe(1);
  }, 60_000);

  it('should log a Redis killed under traffic once (warn), keep answering per instance, and log once when it is back', async () => {
    const { redis, server } = await startServerWithRedis();

    const statuses: number[] = [];
    let sending = true;
    const traffic = (async () => {
      while (sending) {
        const response = await fetch(`${server.origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.firstStartKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'quantum-lite', max_tokens: 8, messages: [{ role: 'user', content: 'Hello' }] }),
          signal: AbortSignal.timeout(10_000),
        });
        statuses.push(response.status);
        await response.arrayBuffer();
      }
    })();
    onTestFinished(async () => {
      sending = false;
      await traffic.catch(() => undefined);
    });
    const answered = async (more: number) => {
      const target = statuses.length + more;
      while (statuses.length < target) await sleep(20);
    };

    await answered(5);
    await redis.kill();
    await server.waitForStdout(/redis unavailable/);
    // Requests meet the dead connection and the reconnection attempts meanwhile: still one line.
    await answered(20);
    await redis.restart();
    await server.waitForStdout(/redis is back/);
    await answered(10);
    sending = false;
    await traffic;

    const stdout = server.stdout();
    expect(JSON.parse(stdout.split('\n').find((line) => /redis unavailable/.test(line))!)).toMatchObject({ level: 40 });
    expect(count(stdout, /redis unavailable/)).toBe(1);
    expect(count(stdout, /redis is back/)).toBe(1);
    // Failing open: every request was answered, during the outage too, and nothing was logged as an error.
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(stdout.split('\n').filter((line) => line.startsWith('{') && Number((JSON.parse(line) as { level: number }).level) >= 50)).toEqual([]);
  }, 60_000);
});
