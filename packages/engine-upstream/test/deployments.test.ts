import type { ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createUpstreamEngine, type UpstreamEngineOptions, type UpstreamRequestEnd } from '../src/index.js';
import { replicasClosedAfterEach, type Replica } from './helpers/start-replica.js';

const request: ChatEngineRequest = {
  model: 'quantum-flash',
  messages: [{ role: 'user', content: 'Hi' }],
  tools: [],
  toolChoice: 'none',
  parallelToolCalls: true,
  temperature: 0.7,
  maxTokens: 64,
  reasoning: false,
};

const { replicas, replicasOf } = replicasClosedAfterEach();

/** An engine over the replicas that records each upstream attempt (which replica, how it ended). */
function engineOver(over: Replica[], options: Partial<UpstreamEngineOptions> = {}) {
  const attempts: { replica: string; outcome: UpstreamRequestEnd }[] = [];
  const engine = createUpstreamEngine({
    deployments: over.map((replica) => ({ baseUrl: replica.baseUrl, model: `m-${replica.name}` })),
    firstTokenTimeoutMs: 2000,
    retry: { baseDelayMs: 1 },
    ...options,
    onUpstreamRequest(start) {
      const replica = over.find((each) => start.url.startsWith(each.baseUrl))!.name;
      return { end: (outcome) => void attempts.push({ replica, outcome }) };
    },
  });
  return { engine, attempts };
}

async function answer(engine: ReturnType<typeof createUpstreamEngine>) {
  const events: ChatEngineEvent[] = [];
  for await (const event of engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })) events.push(event);
  return events.map((event) => (event.type === 'content' ? event.text : '')).join('');
}

describe('an upstream engine over several deployments', () => {
  it('should retry a refused connection, a 5xx and a 429 on another deployment, never the same one', async () => {
    const [dead, failing, limited, healthy] = await replicasOf({ kind: 'ok' }, { kind: 'status', status: 502 }, { kind: 'status', status: 429, retryAfterMs: 60_000 }, { kind: 'ok' });
    await dead!.kill();
    const { engine, attempts } = engineOver([dead!, failing!, limited!, healthy!], { retry: { maxAttempts: 4, baseDelayMs: 1 } });
    for (let index = 0; index < 6; index++) expect(await answer(engine)).toMatch(/^d0 d1 d2 $/);
    const tries = attempts.map((attempt) => attempt.replica);
    // Every request ends on the healthy one; none of the others twice in one request.
    expect(attempts.filter((attempt) => attempt.outcome.error === undefined).every((attempt) => attempt.replica === 'd')).toBe(true);
    // The 429 said "60 s": it is asked once, then left alone.
    expect(tries.filter((name) => name === 'c')).toHaveLength(1);
  });

  it('should not retry a request the client got wrong (a 400 from the deployment)', async () => {
    const [bad, good] = await replicasOf({ kind: 'status', status: 400 }, { kind: 'ok' });
    const { engine, attempts } = engineOver([bad!, good!]);
    // Idle deployments take turns: find the request that goes to the one answering 400.
    const outcomes = await Promise.allSettled([answer(engine), answer(engine)]);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(1);
    expect((outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: 'invalid_value', status: 400 });
    expect(attempts).toHaveLength(2);
  });

  it('should never retry once a token was passed on: the failure is the caller\'s', async () => {
    const [breaking] = await replicasOf({ kind: 'break-after', chunks: 2 }, { kind: 'ok' });
    const { engine, attempts } = engineOver(replicas, { retry: { maxAttempts: 2 } });
    const first = engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })[Symbol.asyncIterator]();
    // Ties go in turn from the first deployment: this request goes to the breaking one.
    const events: ChatEngineEvent[] = [];
    await expect(
      (async () => {
        for (let step = await first.next(); !step.done; step = await first.next()) events.push(step.value);
      })(),
    ).rejects.toMatchObject({ code: 'upstream_error' });
    expect(events.filter((event) => event.type === 'content').length).toBeGreaterThan(0);
    expect(attempts.map((attempt) => attempt.replica)).toEqual([breaking!.name]);
  });

  it('should retry a deployment that sends no first token in time on another', async () => {
    const [hanging, healthy] = await replicasOf({ kind: 'hang' }, { kind: 'ok' });
    const { engine, attempts } = engineOver([hanging!, healthy!], { firstTokenTimeoutMs: 200 });
    expect(await answer(engine)).toBe('b0 b1 b2 ');
    expect(await answer(engine)).toBe('b0 b1 b2 ');
    expect(attempts.map((attempt) => attempt.replica)).toContain('a');
    expect(attempts.find((attempt) => attempt.replica === 'a')!.outcome.error).toMatchObject({ code: 'upstream_timeout' });
  });

  it('should give up after maxAttempts, with the last failure', async () => {
    await replicasOf({ kind: 'status', status: 503 }, { kind: 'status', status: 500 }, { kind: 'status', status: 502 });
    const { engine, attempts } = engineOver(replicas, { retry: { maxAttempts: 2, baseDelayMs: 1 }, circuitBreaker: { failureThreshold: 100 } });
    await expect(answer(engine)).rejects.toMatchObject({ status: expect.any(Number) });
    expect(attempts).toHaveLength(2);
    expect(new Set(attempts.map((attempt) => attempt.replica)).size).toBe(2);
  });

  it('should take a dead deployment out after a few failures, and probe it back in once it is up', async () => {
    const [flaky, steady] = await replicasOf({ kind: 'ok' }, { kind: 'ok' });
    await flaky!.kill();
    const { engine, attempts } = engineOver([flaky!, steady!], { circuitBreaker: { failureThreshold: 2, cooldownMs: 500, maxCooldownMs: 2000 } });
    for (let index = 0; index < 20; index++) await answer(engine);
    const deadTries = attempts.filter((attempt) => attempt.replica === 'a').length;
    // Two failures open it; within the 20 quick requests at most a probe or two follow.
    expect(deadTries).toBeGreaterThanOrEqual(2);
    expect(deadTries).toBeLessThan(6);
    await flaky!.start();
    // The next probes find it up: it serves again.
    for (let index = 0; index < 1000 && flaky!.completed === 0; index++) {
      await answer(engine);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(flaky!.completed).toBeGreaterThan(0);
  });

  it('should answer 503 with retry-after when every deployment is taken out', async () => {
    const [one, two] = await replicasOf({ kind: 'ok' }, { kind: 'ok' });
    await Promise.all([one!.kill(), two!.kill()]);
    const { engine } = engineOver([one!, two!], { circuitBreaker: { failureThreshold: 1, cooldownMs: 30_000 } });
    await expect(answer(engine)).rejects.toMatchObject({ code: 'engine_unavailable' });
    const error = await answer(engine).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'engine_unavailable', headers: { 'retry-after': expect.stringMatching(/^\d+$/) } });
    expect(Number((error as { headers: Record<string, string> }).headers['retry-after'])).toBeGreaterThan(1);
  });

  it('should keep a single deployment as it was: no retry, no breaker', async () => {
    const [only] = await replicasOf({ kind: 'status', status: 503 });
    const { engine, attempts } = engineOver([only!]);
    for (let index = 0; index < 5; index++) await expect(answer(engine)).rejects.toMatchObject({ code: 'engine_unavailable' });
    expect(attempts).toHaveLength(5);
  });

  it('should refuse options with neither baseUrl and model nor deployments, or both', () => {
    expect(() => createUpstreamEngine({})).toThrow(TypeError);
    expect(() => createUpstreamEngine({ deployments: [] })).toThrow(TypeError);
    expect(() => createUpstreamEngine({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', deployments: [{ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }] })).toThrow(TypeError);
  });
});
