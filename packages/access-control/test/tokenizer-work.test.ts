import type { ChatEngine, ChatEngineRequest } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAccessControl } from '../src/create-access-control.js';
import { issueApiKey } from '../src/issue-api-key.js';
import { createMemoryStore } from '../src/memory-store/index.js';
import { startHost } from './hosts.js';
import { chatBody, postChat } from './http-client.js';

/** Text of made-up words of about `length` characters: varied, so no tokenizer cache makes it cheap. */
function prose(length: number, start = 7): string {
  const syllables = ['qua', 'ntu', 'lat', 'tice', 'pho', 'ton', 'en', 'tan', 'gle', 'qu', 'bit', 'mea', 'sure', 'sta', 'te', 'ro', 'vi', 'mon'];
  let seed = start;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
  let text = '';
  for (let index = 0; text.length < length; index++) {
    let word = '';
    for (let count = 1 + (next() % 3); count > 0; count--) word += syllables[next() % syllables.length];
    text += word + (index % 13 === 0 ? '. ' : ' ');
  }
  return text;
}

/** The reference engine, with every prompt count asked of it (by the handler or access control) counted. */
function countingWork(): { engine: ChatEngine; work: { counts: number; estimates: number } } {
  const inner = createReferenceEngine();
  const work = { counts: 0, estimates: 0 };
  const engine: ChatEngine = {
    generate: (request, context) => inner.generate(request, context),
    countTokens: (text) => inner.countTokens!(text),
    // Measuring is the bound (an estimate); each call of its count is a count.
    measurePrompt(request: ChatEngineRequest) {
      work.estimates++;
      const measure = inner.measurePrompt!(request);
      return {
        bound: measure.bound,
        count() {
          work.counts++;
          return measure.count!();
        },
      };
    },
  };
  return { engine, work };
}

async function serve(limits: Record<string, number>, engine: ChatEngine, keyLimits?: Record<string, number>) {
  const store = createMemoryStore();
  await store.createOrganisation({ name: 'busy', plan: 'elite', limits });
  const { key } = await issueApiKey(store, { organisation: 'busy', kind: 'live', ...(keyLimits ? { limits: keyLimits } : {}) });
  const accessControl = createAccessControl({ store });
  const host = await startHost.fastify({ engine, accessControl });
  onTestFinished(async () => {
    await host.close();
    await accessControl.close();
  });
  return { baseUrl: host.baseUrl, key };
}

/** The `x-ratelimit-*` and `retry-after` headers of a response. */
function limitHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('x-ratelimit-limit') || name.startsWith('x-ratelimit-remaining') || name.startsWith('retry-after') || name === 'x-should-retry'));
}

describe('refusing before the expensive work (a real Fastify host)', () => {
  it('should refuse requests over the request limit without counting their prompts, with the headers of any other refusal', async () => {
    const { engine, work } = countingWork();
    const { baseUrl, key } = await serve({ requestsPerMinute: 2 }, engine);
    const body = chatBody({ max_tokens: 16 }, prose(200_000));
    for (let index = 0; index < 2; index++) expect((await postChat(baseUrl, key, body)).status).toBe(200);
    // The two that ran were counted once each (in turns), for their reservation.
    expect(work.counts).toBe(2);
    const started = performance.now();
    const refused = await Promise.all(Array.from({ length: 20 }, () => postChat(baseUrl, key, body)));
    console.log(`20 requests of 200 KB over the request limit refused in ${Math.round(performance.now() - started)} ms, their prompts counted ${work.counts - 2} times`);
    expect(refused.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 429));
    expect(((await refused[0]!.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'rate_limit_exceeded', message: expect.stringContaining("requests per minute (organisation 'busy')") });
    // None of the twenty was tokenised.
    expect(work.counts).toBe(2);
    expect(work.estimates).toBe(22);
    // A short prompt is counted at once and refused by the reservation itself: the same answer.
    const short = await postChat(baseUrl, key, chatBody({ max_tokens: 16 }, 'Hello'));
    expect(short.status).toBe(429);
    expect(Object.keys(limitHeaders(refused[0]!)).sort()).toEqual(Object.keys(limitHeaders(short)).sort());
    expect(limitHeaders(refused[0]!)).toMatchObject({ 'x-ratelimit-limit-requests': '2', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-limit-tokens': limitHeaders(short)['x-ratelimit-limit-tokens'] });
  }, 60_000);

  it("should refuse a request over its key's own request limit without counting it, naming the key", async () => {
    const { engine, work } = countingWork();
    const { baseUrl, key } = await serve({ requestsPerMinute: 100 }, engine, { requestsPerMinute: 1 });
    const body = chatBody({ max_tokens: 16 }, prose(100_000));
    expect((await postChat(baseUrl, key, body)).status).toBe(200);
    const refused = await postChat(baseUrl, key, body);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/requests per minute \(key qc_live_/);
    expect(work.counts).toBe(1);
  }, 60_000);

  it('should reserve the exact count, so that the limits are as exact as before', async () => {
    const { engine, work } = countingWork();
    const { baseUrl, key } = await serve({ tokensPerMinute: 20_000 }, engine);
    // Its bound (40,000 bytes) is over the limit, its count (about a third of that) is not.
    const response = await postChat(baseUrl, key, chatBody({ max_tokens: 16 }, prose(40_000)));
    expect(response.status).toBe(200);
    const { usage } = (await response.json()) as { usage: { prompt_tokens: number } };
    expect(usage.prompt_tokens).toBeLessThan(20_000);
    expect(Number(response.headers.get('x-ratelimit-remaining-tokens'))).toBe(20_000 - usage.prompt_tokens - 16);
    expect(work.counts).toBe(1);
  }, 60_000);
});
