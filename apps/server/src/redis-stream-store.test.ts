import { describe, expect, it, onTestFinished } from 'vitest';
import { redisServerAvailable, redisSkipMessage, startRedisServer } from '../../../packages/access-control/test/redis-server.js';
import { createRedisStreamStore } from './redis-stream-store.js';

describe.skipIf(!redisServerAvailable)('createRedisStreamStore', () => {
  it('should make a created stream known to every instance once create resolves, before any frame', async () => {
    if (!redisServerAvailable) console.warn(redisSkipMessage);
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const producer = createRedisStreamStore(redis.url);
    const other = createRedisStreamStore(redis.url);
    onTestFinished(async () => {
      await producer.close();
      await other.close();
    });
    for (let index = 0; index < 20; index++) {
      const id = `chatcmpl-race${index}`;
      // What the handler waits for before the response's headers (with the id) go out.
      await producer.create(id, { owner: 'org_1:live', kind: 'chat:quantum', createdAt: 1 });
      // The other instance asks in the very same turn: the stream is there, running, no frame yet.
      expect(await other.describe(id)).toEqual({ meta: { owner: 'org_1:live', kind: 'chat:quantum', createdAt: 1 }, state: 'running', lastSeq: 0 });
    }
  });

  it('should not hold a new stream back for good when Redis hangs: create resolves after createWaitMs, the stream is served here', async () => {
    if (!redisServerAvailable) console.warn(redisSkipMessage);
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const errors: unknown[] = [];
    const store = createRedisStreamStore(redis.url, { createWaitMs: 50, onError: (error) => errors.push(error) });
    onTestFinished(() => store.close().catch(() => undefined));
    // A first command makes sure the connection is up before Redis stops answering.
    await store.describe('chatcmpl-warmup');
    redis.pause();
    onTestFinished(() => redis.resume());
    await store.create('chatcmpl-hung', { owner: 'org_1:live', kind: 'chat:quantum', createdAt: 1 });
    store.append('chatcmpl-hung', [{ seq: 1, frame: 'id: 1\ndata: {}\n\n' }]);
    store.end('chatcmpl-hung');
    expect(await store.readAll('chatcmpl-hung')).toEqual([{ seq: 1, frame: 'id: 1\ndata: {}\n\n' }]);
    redis.resume();
  });
});
