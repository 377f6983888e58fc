import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseApiKey, QuantumChatError, type Principal } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAccessControl } from '../src/create-access-control.js';
import { createLimiter, type Limiter } from '../src/create-limiter.js';
import { utcDay } from '../src/utc-day.js';
import { issueApiKey } from '../src/issue-api-key.js';
import type { ServiceStore } from '../src/service-store/index.js';
import { createMemoryStore } from '../src/memory-store/index.js';
import type { LimitOverrides } from '../src/plan-limits.js';
import { createSqliteStore } from '../src/sqlite-store/index.js';
import { startHost } from './hosts.js';
import { chatBody, postChat } from './http-client.js';
import { redisServerAvailable, redisSkipMessage, startRedisServer } from './redis-server.js';

if (!redisServerAvailable) console.warn(redisSkipMessage);

function sqliteStore(): ServiceStore {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-day-'));
  const store = createSqliteStore(join(directory, 'keys.sqlite'));
  onTestFinished(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return store;
}

describe('the day is settled when the request settles', () => {
  it('should answer five back-to-back ~99-token requests of an organisation with 20,000 tokens a day (the report)', async () => {
    const store = sqliteStore();
    await store.createOrganisation({ name: 'daily', plan: 'free', limits: { requestsPerMinute: null, tokensPerMinute: null, tokensPerDay: 20_000 } });
    const { key } = await issueApiKey(store, { organisation: 'daily', kind: 'live' });
    const accessControl = createAccessControl({ store });
    onTestFinished(() => accessControl.close());
    const host = await startHost.fastify({ engine: createReferenceEngine(), accessControl });
    onTestFinished(() => host.close());

    let used = 0;
    for (let index = 0; index < 5; index++) {
      // No max_tokens: the model's default (4,096) is reserved, about a fifth of the day.
      const body = chatBody({ max_tokens: undefined }, `Tell me about daily quotas, request ${index}.`);
      const response = await postChat(host.baseUrl, key, body);
      const text = await response.text();
      expect({ index, status: response.status, shouldRetry: response.headers.get('x-should-retry') }).toMatchObject({ index, status: 200 });
      used += (JSON.parse(text) as { usage: { total_tokens: number } }).usage.total_tokens;
    }
    expect(used).toBeLessThan(1000);
    // Once an answer is received, its day is settled: the count is the real use, not reservations.
    expect(await store.readDailyTokens({ bucket: 'daily:live', day: utcDay(Date.now()) })).toBe(used);
  });
});

/** A limit: none (null) or a number of tokens that a few requests can exhaust. */
const tokenLimit = fc.option(fc.integer({ min: 1, max: 4_000 }), { nil: null });
const limitsArbitrary = fc.record({ tokensPerMinute: tokenLimit, tokensPerDay: tokenLimit, requestsPerMinute: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }) });
const requestArbitrary = fc.record({ promptTokens: fc.integer({ min: 1, max: 400 }), maxTokens: fc.integer({ min: 1, max: 1_200 }), usedShare: fc.double({ min: 0, max: 1, noNaN: true }) });

interface Scenario {
  organisation: LimitOverrides & { requestsPerMinute: number | null; tokensPerMinute: number | null; tokensPerDay: number | null };
  key: (LimitOverrides & { requestsPerMinute: number | null; tokensPerMinute: number | null; tokensPerDay: number | null }) | undefined;
  requests: { promptTokens: number; maxTokens: number; usedShare: number }[];
}

const scenarioArbitrary: fc.Arbitrary<Scenario> = fc.record({
  organisation: limitsArbitrary,
  key: fc.option(limitsArbitrary, { nil: undefined }),
  requests: fc.array(requestArbitrary, { minLength: 1, maxLength: 12 }),
});

/**
 * Runs one scenario through the real access control and store: each request is admitted (or
 * refused), then settled to its real use, one after the other as a client would send them.
 * Every bucket's day must then read limit − Σ real use, and a refusal of the day must mean
 * the day is really spent for that request.
 */
async function runScenario(scenario: Scenario, limiter: () => Limiter): Promise<void> {
  const store = createMemoryStore();
  const organisation = `org-${Math.random().toString(36).slice(2)}`;
  await store.createOrganisation({ name: organisation, plan: 'free', limits: scenario.organisation });
  const issued = await issueApiKey(store, { organisation, kind: 'live', ...(scenario.key !== undefined ? { limits: scenario.key } : {}) });
  const accessControl = createAccessControl({ store, limiter: limiter() });
  try {
    const principal: Principal = await accessControl.authenticate(parseApiKey(issued.key)!);
    const day = utcDay(Date.now());
    const buckets = [{ name: `${organisation}:live`, limits: scenario.organisation }];
    if (scenario.key !== undefined) buckets.push({ name: `key:${issued.record.id}`, limits: scenario.key });
    const usedDay = new Map(buckets.map((bucket) => [bucket.name, 0]));
    const usedMinute = new Map(buckets.map((bucket) => [bucket.name, 0]));
    const requestsMinute = new Map(buckets.map((bucket) => [bucket.name, 0]));
    for (const [index, request] of scenario.requests.entries()) {
      const reserved = request.promptTokens + request.maxTokens;
      const completionTokens = Math.floor(request.maxTokens * request.usedShare);
      let refusal: QuantumChatError | undefined;
      try {
        const admission = await accessControl.admit(principal, { requestId: `r${index}`, model: 'quantum-lite', promptTokens: request.promptTokens, maxTokens: request.maxTokens });
        await admission.settle({ promptTokens: request.promptTokens, completionTokens, status: 200, interrupted: false });
      } catch (error) {
        if (!QuantumChatError.isInstance(error)) throw error;
        refusal = error;
      }
      const spentDay = buckets.some((bucket) => bucket.limits.tokensPerDay !== null && usedDay.get(bucket.name)! + reserved > bucket.limits.tokensPerDay);
      const spentMinute = buckets.some(
        (bucket) =>
          (bucket.limits.tokensPerMinute !== null && usedMinute.get(bucket.name)! + reserved > bucket.limits.tokensPerMinute) ||
          (bucket.limits.requestsPerMinute !== null && requestsMinute.get(bucket.name)! + 1 > bucket.limits.requestsPerMinute),
      );
      if (refusal === undefined) {
        expect({ index, spentDay, spentMinute }).toEqual({ index, spentDay: false, spentMinute: false });
        for (const bucket of buckets) {
          usedDay.set(bucket.name, usedDay.get(bucket.name)! + request.promptTokens + completionTokens);
          usedMinute.set(bucket.name, usedMinute.get(bucket.name)! + request.promptTokens + completionTokens);
          requestsMinute.set(bucket.name, requestsMinute.get(bucket.name)! + 1);
        }
      } else if (refusal.code === 'insufficient_quota') {
        // Refused for the day only when the day is really spent for this request.
        expect({ index, code: refusal.code, spentDay }).toEqual({ index, code: 'insufficient_quota', spentDay: true });
      } else {
        expect({ index, code: refusal.code, spentMinute: spentMinute || spentDay }).toEqual({ index, code: refusal.code, spentMinute: true });
      }
      // After each settled request, every counted day holds the real use: remaining = limit − Σ use.
      for (const bucket of buckets) {
        if (bucket.limits.tokensPerDay === null) continue;
        expect({ index, bucket: bucket.name, day: await store.readDailyTokens({ bucket: bucket.name, day }) }).toEqual({ index, bucket: bucket.name, day: usedDay.get(bucket.name) });
      }
    }
  } finally {
    await accessControl.close();
  }
}

describe('remaining tokens after N requests = limit − Σ real use (property, every combination of organisation and key limits)', () => {
  it('should hold with limits counted in this process', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, (scenario) => runScenario(scenario, () => createLimiter())),
      { numRuns: 150 },
    );
  });

  it.skipIf(!redisServerAvailable)('should hold with limits shared through Redis', { timeout: 120_000 }, async () => {
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const limiters: Limiter[] = [];
    onTestFinished(async () => {
      for (const limiter of limiters) await limiter.close();
    });
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, (scenario) =>
        runScenario(scenario, () => {
          // A fresh key prefix per run: buckets of earlier runs must not count.
          const limiter = createLimiter({ redis: redis.url, keyPrefix: `run${limiters.length}:` });
          limiters.push(limiter);
          return limiter;
        }),
      ),
      { numRuns: 60 },
    );
  });
});
