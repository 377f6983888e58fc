import type { ChatEngineRequest } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createUpstreamEngine, type UpstreamEngineOptions } from '../src/index.js';
import { replicasClosedAfterEach, type Replica, type ReplicaMode } from './helpers/start-replica.js';

const { replicas, replicasOf } = replicasClosedAfterEach();

/** A replica that fails (`then`) whatever carries the word, and answers everything else. */
const sensitiveTo = (word: string, then: ReplicaMode = { kind: 'status', status: 500 }): ReplicaMode => ({ kind: 'when', matches: (body) => body.includes(word), then, otherwise: { kind: 'ok' } });

function requestOf(content: string): ChatEngineRequest {
  return { model: 'quantum-flash', messages: [{ role: 'user', content }], tools: [], toolChoice: 'none', parallelToolCalls: true, temperature: 0.7, maxTokens: 64, reasoning: false };
}

/** An engine over the replicas with the default breaker (3 failures, 5 s out); each request's replicas are recorded. */
function engineOver(over: Replica[], { weights, ...options }: Partial<UpstreamEngineOptions> & { weights?: number[] } = {}) {
  const tried: string[][] = [];
  let current: string[] = [];
  const engine = createUpstreamEngine({
    deployments: over.map((replica, index) => ({ baseUrl: replica.baseUrl, model: `m-${replica.name}`, ...(weights ? { weight: weights[index]! } : {}) })),
    firstTokenTimeoutMs: 2000,
    retry: { baseDelayMs: 1 },
    ...options,
    onUpstreamRequest(start) {
      current.push(over.find((each) => start.url.startsWith(each.baseUrl))!.name);
    },
  });
  async function ask(content: string, signal = new AbortController().signal): Promise<{ text: string } | { error: { code: string; status: number } }> {
    current = [];
    tried.push(current);
    try {
      let text = '';
      for await (const event of engine.generate(requestOf(content), { signal, requestId: 'r' })) if (event.type === 'content') text += event.text;
      return { text };
    } catch (error) {
      return { error: error as { code: string; status: number } };
    }
  }
  return { ask, tried };
}

describe('a request whose content makes every replica fail (a poison prompt)', () => {
  it('should fail that request alone: sent 10 times by one tenant, it takes no replica out for the others', async () => {
    await replicasOf(sensitiveTo('POISON'), sensitiveTo('POISON'));
    const { ask, tried } = engineOver(replicas);
    const poisoned = [];
    for (let index = 0; index < 10; index++) poisoned.push(await ask('POISON, please'));
    const others = await Promise.all(Array.from({ length: 6 }, (_, index) => ask(`An honest question ${index}`)));
    const statuses = (answers: typeof others) => answers.map((answer) => ('text' in answer ? 200 : answer.error.status)).join(' ');
    console.log(`poison requests got ${statuses(poisoned)}; then other requests got ${statuses(others)}`);
    expect(poisoned.every((answer) => 'error' in answer && answer.error.code === 'upstream_error' && answer.error.status === 502)).toBe(true);
    // Each was tried on both replicas: the failure followed the request, not a replica.
    expect(tried.slice(0, 10).every((names) => [...names].sort().join() === 'a,b')).toBe(true);
    expect(others.every((answer) => 'text' in answer)).toBe(true);
    expect(new Set(tried.slice(10).flat())).toEqual(new Set(['a', 'b']));
  });

  it('should still take out a replica that fails requests another replica answers', async () => {
    const [broken] = await replicasOf({ kind: 'status', status: 500 }, { kind: 'ok' });
    const { ask, tried } = engineOver(replicas);
    for (let index = 0; index < 10; index++) expect(await ask(`Question ${index}`)).toHaveProperty('text');
    // Three failures, each proven the replica's by the other's answer: then it is out (5 s).
    expect(tried.flat().filter((name) => name === 'a')).toHaveLength(3);
    expect(broken!.received).toBe(3);
  });

  it('should count one request that fails on the only replica it tried once, however often it is sent, and distinct ones each', async () => {
    await replicasOf(sensitiveTo('POISON'), sensitiveTo('POISON'));
    // One attempt per request: nothing proves whose fault a failure is.
    const { ask, tried } = engineOver(replicas, { retry: { maxAttempts: 1 } });
    for (let index = 0; index < 8; index++) expect(await ask('POISON, again')).toHaveProperty('error');
    expect(tried.slice(0, 8).flat().sort().join('')).toBe('aaaabbbb');
    expect(await ask('An honest question')).toHaveProperty('text');
    expect(await ask('Another honest question')).toHaveProperty('text');
    // Three distinct failing requests on each replica: each is taken out.
    for (let index = 0; index < 6; index++) expect(await ask(`POISON number ${index}`)).toHaveProperty('error');
    expect(await ask('An honest question')).toMatchObject({ error: { code: 'engine_unavailable', status: 503 } });
  });

  it('should judge a failure when the client leaves during the wait before the retry (a probe is never left out)', async () => {
    const [first] = await replicasOf(sensitiveTo('POISON'), { kind: 'ok' });
    // The heavy replica is always chosen first while it is in; the wait before a retry is 1–2 s.
    const { ask, tried } = engineOver(replicas, { weights: [100, 1], circuitBreaker: { failureThreshold: 1, cooldownMs: 100 }, retry: { maxAttempts: 2, baseDelayMs: 2000, maxDelayMs: 2000 } });
    const leaving = () => AbortSignal.timeout(200);
    // Fails on a, answered by b after the wait: a's failure is proven a's own, and a is out for 100 ms.
    expect(await ask('POISON, please')).toHaveProperty('text');
    await new Promise((resolve) => setTimeout(resolve, 150));
    // a is half-open: this request is its probe, fails, and the client leaves during the wait before the retry.
    expect(await ask('POISON, please', leaving())).toHaveProperty('error');
    // The failed probe was judged (out 200 ms more), and a may be probed again after: an honest request goes there and puts it back.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await ask('An honest question')).toHaveProperty('text');
    expect(tried.map((names) => names.join(''))).toEqual(['ab', 'a', 'a']);
    expect(first!.completed).toBe(1);
  });

  it('should count a first-token timeout on a prompt far above the usual size for less than a failure', async () => {
    const huge = (index: number) => `${index} ${'lorem ipsum '.repeat(20_000)}`;
    await replicasOf(sensitiveTo('lorem ipsum lorem', { kind: 'hang' }), sensitiveTo('lorem ipsum lorem', { kind: 'hang' }));
    const { ask, tried } = engineOver(replicas, { retry: { maxAttempts: 1 }, firstTokenTimeoutMs: 200 });
    for (let index = 0; index < 10; index++) expect(await ask(`A usual question ${index}`)).toHaveProperty('text');
    // Six distinct huge prompts time out, three on each replica: three full failures would take both out.
    for (let index = 0; index < 6; index++) expect(await ask(huge(index))).toMatchObject({ error: { code: 'upstream_timeout' } });
    const after = await Promise.all([ask('A usual question again'), ask('And another')]);
    expect(after.every((answer) => 'text' in answer)).toBe(true);
    expect(new Set(tried.slice(16).flat())).toEqual(new Set(['a', 'b']));
  });
});
