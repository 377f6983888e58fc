import { describe, expect, it, onTestFinished } from 'vitest';
import { redisServerAvailable, redisSkipMessage, startRedisServer } from '../../../packages/access-control/test/redis-server.js';
import { startServerProcess } from './server-process.js';

if (!redisServerAvailable) console.warn(redisSkipMessage);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (text: string, pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line)).length;

describe.skipIf(!redisServerAvailable)('quantum-chat serve with Redis', () => {
  it('should log a Redis killed while the server is idle once (warn), and once when it is back', async () => {
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const server = await startServerProcess({}, { REDIS_URL: redis.url });
    onTestFinished(() => server.dispose());
    await server.waitForStdout(/rate limits shared through redis/);

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
});
