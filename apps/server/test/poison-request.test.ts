import { describe, expect, it, onTestFinished } from 'vitest';
import { startReplica } from '../../../packages/engine-upstream/test/helpers/start-replica.js';
import { createLiveKey } from './create-live-key.js';
import { startServerProcess } from './server-process.js';

/** Fails (500) whatever carries the word; answers the rest. */
const sensitiveTo = (word: string) => ({ kind: 'when', matches: (body: string) => body.includes(word), then: { kind: 'status', status: 500 }, otherwise: { kind: 'ok' } }) as const;

describe('quantum-chat serve over two replicas and a poison prompt', () => {
  it('should fail the poison prompt alone: sent again and again, it takes neither replica out for other requests', async () => {
    const replicas = await Promise.all([startReplica('a', sensitiveTo('POISON')), startReplica('b', sensitiveTo('POISON'))]);
    onTestFinished(() => Promise.all(replicas.map((replica) => replica.close())).then(() => undefined));
    const server = await startServerProcess({
      models: { 'quantum-flash': { engine: 'upstream', deployments: replicas.map((replica) => ({ baseUrl: replica.baseUrl, model: `m-${replica.name}` })) } },
    });
    onTestFinished(() => server.dispose());
    const key = await createLiveKey(server.dataDir);
    const ask = async (content: string) => {
      const response = await fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content }] }),
      });
      await response.arrayBuffer();
      return response.status;
    };
    const poisoned: number[] = [];
    for (let index = 0; index < 5; index++) poisoned.push(await ask('POISON, please'));
    const others = await Promise.all(Array.from({ length: 6 }, (_, index) => ask(`An honest question ${index}`)));
    console.log(`poison requests got ${poisoned.join(' ')}; then other requests got ${others.join(' ')}`);
    expect(poisoned).toEqual([502, 502, 502, 502, 502]);
    expect(others).toEqual([200, 200, 200, 200, 200, 200]);
    expect(replicas.every((replica) => replica.completed > 0)).toBe(true);
  }, 60_000);
});
