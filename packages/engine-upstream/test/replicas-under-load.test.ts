/**
 * The failover proof: three stand-in replicas behind our handler (Fastify, over real HTTP), a
 * bounded load of streaming clients, and faults injected while it runs: one replica killed
 * and later brought back, one answering 429, one hanging. No client whose request had not yet
 * received a token may see a failure.
 */
import { insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamEngine, type UpstreamRequestEnd } from '../src/index.js';
import { apiKey, startFrontServer, type FrontServer } from './helpers/start-front-server.js';
import { startReplica, type Replica } from './helpers/start-replica.js';

interface ClientRecord {
  status: number;
  /** Content chunks received before the stream ended. */
  tokens: number;
  done: boolean;
  errorFrame: boolean;
}

interface Attempt {
  replica: string;
  outcome: UpstreamRequestEnd;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function streamOnce(front: FrontServer): Promise<ClientRecord> {
  const response = await fetch(`${front.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-flash', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  const text = await response.text().catch(() => '');
  return {
    status: response.status,
    tokens: (text.match(/"content":"[^"]+"/g) ?? []).length,
    done: text.endsWith('data: [DONE]\n\n'),
    errorFrame: text.includes('event: error'),
  };
}

/** Streaming clients, `concurrency` at a time, until `stop()` (or `maxRequests`): a bounded load. */
function startLoad(front: FrontServer, concurrency: number, maxRequests: number) {
  const records: ClientRecord[] = [];
  let stopped = false;
  let sent = 0;
  const loops = Array.from({ length: concurrency }, async () => {
    while (!stopped && sent < maxRequests) {
      sent++;
      records.push(await streamOnce(front));
    }
  });
  return {
    records,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Waits (on the load's own progress, polled) until `condition` holds; fails after `maxPolls`. */
async function until(condition: () => boolean, what: string, maxPolls = 4000): Promise<void> {
  for (let poll = 0; poll < maxPolls; poll++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never happened: ${what}`);
}

async function setUp(replicas: Replica[], firstTokenTimeoutMs: number) {
  closers.push(...replicas.map((replica) => () => replica.close()));
  const attempts: Attempt[] = [];
  const engine = createUpstreamEngine({
    deployments: replicas.map((replica) => ({ baseUrl: replica.baseUrl, model: replica.name })),
    firstTokenTimeoutMs,
    retry: { maxAttempts: 3, baseDelayMs: 5 },
    circuitBreaker: { failureThreshold: 3, cooldownMs: 300, maxCooldownMs: 1200 },
    onUpstreamRequest(start) {
      const replica = replicas.find((each) => start.url.startsWith(each.baseUrl))!.name;
      return { end: (outcome) => void attempts.push({ replica, outcome }) };
    },
  });
  const front = await startFrontServer('fastify', { engine, accessControl: insecureAcceptAnyApiKey(), keepAliveIntervalMs: 0 });
  closers.push(() => front.close());
  return { front, attempts };
}

describe('replicas under load', () => {
  it('should fail over a killed, a rate-limited and a hanging replica without a failure a client sees before its first token', async () => {
    const [a, b, c] = await Promise.all([startReplica('a', { kind: 'ok', chunks: 4, pauseMs: 2 }), startReplica('b', { kind: 'ok', chunks: 4, pauseMs: 2 }), startReplica('c', { kind: 'ok', chunks: 4, pauseMs: 2 })]);
    const { front, attempts } = await setUp([a!, b!, c!], 1000);
    const load = startLoad(front, 6, 5000);
    const finished = () => load.records.length;
    const triesOf = (name: string, from: number) => attempts.slice(from).filter((attempt) => attempt.replica === name).length;

    await until(() => finished() >= 30, 'a warm start');

    // 1. A is killed mid-load (its open streams break; new connections are refused).
    await a!.kill();
    const killedAt = attempts.length;
    const requestsAtKill = finished();
    await until(() => finished() >= requestsAtKill + 60, 'requests with A dead');

    // 2. B answers 429 (retry after 2 s) while A is still dead.
    const limitedFrom = attempts.length;
    const requestsAtLimit = finished();
    b!.mode = { kind: 'status', status: 429, retryAfterMs: 2000 };
    await until(() => finished() >= requestsAtLimit + 60, 'requests with B rate limited');
    const limitedTries = triesOf('b', limitedFrom);
    const limitedRequests = finished() - requestsAtLimit;

    // 3. B recovers and is probed back in; then C hangs (no first token) while A is still dead.
    b!.mode = { kind: 'ok', chunks: 4, pauseMs: 2 };
    const bServed = b!.completed;
    await until(() => b!.completed >= bServed + 10, 'B back in');
    c!.mode = { kind: 'hang' };
    const requestsAtHang = finished();
    await until(() => finished() >= requestsAtHang + 40, 'requests with C hanging');

    // 4. C answers again and A comes back on its port: both are probed back in.
    c!.mode = { kind: 'ok', chunks: 4, pauseMs: 2 };
    const deadTries = triesOf('a', killedAt);
    const requestsWhileDead = finished() - requestsAtKill;
    await a!.start();
    await until(() => a!.completed > 0, 'A back in');
    const requestsAtBack = finished();
    await until(() => finished() >= requestsAtBack + 30, 'requests after A is back');
    await load.stop();

    const records = load.records;
    // Zero client-visible failures for requests that had not started streaming.
    const failedBeforeFirstToken = records.filter((record) => record.tokens === 0 && !(record.status === 200 && record.done));
    expect(failedBeforeFirstToken).toEqual([]);
    // The only failures are streams that were already flowing from A when it was killed.
    const failedAfterTokens = records.filter((record) => record.status === 200 && !record.done);
    expect(failedAfterTokens.every((record) => record.errorFrame && record.tokens > 0)).toBe(true);
    expect(failedAfterTokens.length).toBeLessThanOrEqual(6);
    // A dead replica is taken out within a few requests: tried by the first failures (up to one
    // per client in flight) and a few probes, not by its share of the hundreds of requests.
    expect(requestsWhileDead).toBeGreaterThan(150);
    expect(deadTries).toBeLessThan(25);
    // The 429 replica is left alone while its retry-after runs: far below its share.
    expect(limitedTries).toBeLessThan(limitedRequests / 3);
    // Every attempt on a replica that was failing ended as a failure the client never saw.
    expect(attempts.some((attempt) => attempt.replica === 'c' && (attempt.outcome.error as { code?: string } | undefined)?.code === 'upstream_timeout')).toBe(true);
    expect(a!.completed).toBeGreaterThan(0);
  }, 120_000);

  it('should route by busyness, not in turn: a slow replica gets few requests', async () => {
    const slow = await startReplica('slow', { kind: 'ok', chunks: 5, pauseMs: 80 });
    const [fast1, fast2] = await Promise.all([startReplica('fast1', { kind: 'ok', chunks: 5, pauseMs: 1 }), startReplica('fast2', { kind: 'ok', chunks: 5, pauseMs: 1 })]);
    const { front } = await setUp([slow, fast1!, fast2!], 10_000);
    const load = startLoad(front, 6, 150);
    await until(() => load.records.length >= 150, '150 requests', 20_000);
    await load.stop();
    expect(load.records.every((record) => record.status === 200 && record.done)).toBe(true);
    // In turn, each would get 50.
    expect(slow.received).toBeLessThan(25);
    expect(fast1!.received).toBeGreaterThan(50);
    expect(fast2!.received).toBeGreaterThan(50);
  }, 120_000);
});
