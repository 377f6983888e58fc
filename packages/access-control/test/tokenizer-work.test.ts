import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ChatEngine, ChatEngineRequest } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAccessControl } from '../src/create-access-control.js';
import { issueApiKey } from '../src/issue-api-key.js';
import { createMemoryKeyStore } from '../src/memory-key-store.js';
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
    countPromptTokens(request: ChatEngineRequest) {
      work.counts++;
      return inner.countPromptTokens!(request);
    },
    async countPromptTokensAsync(request: ChatEngineRequest) {
      work.counts++;
      return inner.countPromptTokensAsync!(request);
    },
    estimatePromptTokens(request: ChatEngineRequest) {
      work.estimates++;
      return inner.estimatePromptTokens!(request);
    },
  };
  return { engine, work };
}

async function serve(limits: Record<string, number>, engine: ChatEngine) {
  const store = createMemoryKeyStore();
  await store.createOrganisation({ name: 'busy', plan: 'elite', limits });
  const { key } = await issueApiKey(store, { organisation: 'busy', kind: 'live' });
  const accessControl = createAccessControl({ store });
  const host = await startHost.fastify({ engine, accessControl });
  onTestFinished(async () => {
    await host.close();
    await accessControl.close();
  });
  return { baseUrl: host.baseUrl, key };
}

describe('refusing before the expensive work (a real Fastify host)', () => {
  it('should refuse requests over the request limit without counting their prompts', async () => {
    const { engine, work } = countingWork();
    const { baseUrl, key } = await serve({ requestsPerMinute: 2 }, engine);
    const body = chatBody({ max_tokens: 16 }, prose(200_000));
    for (let index = 0; index < 2; index++) expect((await postChat(baseUrl, key, body)).status).toBe(200);
    // The two that ran were counted once each (in turns), for their reservation.
    expect(work.counts).toBe(2);
    const started = performance.now();
    const refused = await Promise.all(Array.from({ length: 20 }, () => postChat(baseUrl, key, body)));
    console.log(`20 requests of 200 KB over the request limit refused in ${Math.round(performance.now() - started)} ms`);
    expect(refused.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 429));
    expect(((await refused[0]!.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    // None of the twenty was tokenised.
    expect(work.counts).toBe(2);
    expect(work.estimates).toBe(22);
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

  it('should report the longest event-loop block of a 1 MB request', async () => {
    const { engine } = countingWork();
    const { baseUrl, key } = await serve({ tokensPerMinute: 10_000_000 }, engine);
    const blocks: number[] = [];
    for (let round = 0; round < 3; round++) {
      // A text of its own each round: nothing the tokenizer saw before.
      const body = chatBody({ max_tokens: 16 }, prose(1_000_000, 100 + round));
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const response = await postChat(baseUrl, key, body);
      expect(response.status).toBe(200);
      await response.text();
      await new Promise((resolve) => setTimeout(resolve, 5));
      delay.disable();
      blocks.push(delay.max / 1e6);
    }
    console.log(`1 MB request through the Fastify host: longest event-loop block ${blocks.map((ms) => ms.toFixed(0)).join(', ')} ms (three rounds)`);
  }, 60_000);
});
