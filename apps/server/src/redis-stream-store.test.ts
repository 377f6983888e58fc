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
});
