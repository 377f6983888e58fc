import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAccessControl } from '../src/create-access-control.js';
import { createLimiter } from '../src/create-limiter.js';
import { issueApiKey } from '../src/issue-api-key.js';
import { createMemoryStore } from '../src/memory-store/index.js';
import { utcDay } from '../src/utc-day.js';
import { createCountingEngine } from './counting-engine.js';
import { hostNames, startHost } from './hosts.js';
import { chatBody, eventually, postChat } from './http-client.js';

const question = 'Please explain in a few sentences how the quantum flash model answers a question about rate limits.';

/** Reads a stream until `frames` message events arrived, then disconnects. */
async function readThenDisconnect(baseUrl: string, key: string, frames: number): Promise<string> {
  const controller = new AbortController();
  const response = await postChat(baseUrl, key, chatBody({ stream: true, max_tokens: 300 }, question), {}, controller.signal);
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  // frames 0: leave as soon as the headers arrived, before the body was read at all.
  while ((text.match(/event: message/g) ?? []).length < frames) {
    const { value, done } = await reader.read();
    if (done) throw new Error('The stream ended before the disconnect.');
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  await reader.closed.catch(() => undefined);
  return text;
}

describe.each(hostNames)('the token ledger (%s)', (host) => {
  it('should charge exactly the tokens produced across successes, errors and disconnects', async () => {
    // Paced, so that a stream is still running when the client leaves.
    const { engine, produced } = createCountingEngine(createReferenceEngine({ tokensPerSecond: 400 }));
    const store = createMemoryStore();
    await store.createOrganisation({ name: 'ledger', plan: 'free', limits: { tokensPerMinute: 8_200 } });
    const { key } = await issueApiKey(store, { organisation: 'ledger', kind: 'live' });
    const limiter = createLimiter();
    const accessControl = createAccessControl({ store, limiter });
    const running = await startHost[host]({ engine, accessControl });
    onTestFinished(() => running.close());
    const { baseUrl } = running;
    const send = (overrides: Record<string, unknown>, content = question) => postChat(baseUrl, key, chatBody({ max_tokens: 300, ...overrides }, content));

    const statuses: number[] = [];
    for (const model of ['quantum-lite', 'quantum-reasoner']) {
      const response = await send({ model });
      statuses.push(response.status);
      await response.text();
      const streamed = await send({ model, stream: true });
      statuses.push(streamed.status);
      expect(await streamed.text()).toContain('data: [DONE]');
    }
    const failedJson = await send({}, `${question} [fail-after-4]`);
    statuses.push(failedJson.status);
    await failedJson.text();
    const failedStream = await send({ stream: true }, `${question} [fail-after-4]`);
    statuses.push(failedStream.status);
    expect(await failedStream.text()).toContain('event: error');
    const failedAtStart = await send({ stream: true }, `${question} [fail-at-start]`);
    statuses.push(failedAtStart.status);
    await failedAtStart.text();
    const disconnects = await Promise.all([0, 3, 5, 8].map((frames) => readThenDisconnect(baseUrl, key, frames)));
    expect(disconnects.every((text) => !text.includes('[DONE]'))).toBe(true);
    // Refused before the engine runs: it must charge nothing.
    const refused = await send({ max_tokens: 8192 });
    expect(refused.status).toBe(429);
    await refused.text();

    expect(statuses).toEqual([200, 200, 200, 200, 502, 200, 502]);
    const admitted = statuses.length + disconnects.length;
    // Rows are written in batches, running requests first as progress rows: wait for every one settled.
    await eventually(async () => {
      const rows = await store.listUsage({ organisation: 'ledger' });
      return rows.length === admitted && rows.every((row) => row.settled);
    });
    const records = await store.listUsage({ organisation: 'ledger' });
    expect(produced).toHaveLength(admitted);
    const producedTotal = produced.reduce((sum, item) => sum + item.promptTokens + item.completionTokens, 0);
    const recordedTotal = records.reduce((sum, record) => sum + record.promptTokens + record.completionTokens, 0);
    const state = await limiter.read('ledger:live', accessControl.limitsOf({ keyId: '', organisationId: 'ledger', plan: 'free', kind: 'live' }));
    expect(recordedTotal).toBe(producedTotal);
    expect(state.tokens?.used).toBe(producedTotal);
    // The day is counted in the store, and settled to the tokens used as the rows are written.
    expect(await store.readDailyTokens({ bucket: 'ledger:live', day: utcDay(Date.now()) })).toBe(producedTotal);
    expect(state.requests?.used).toBe(admitted);

    const interrupted = records.filter((record) => record.interrupted);
    expect(interrupted).toHaveLength(7);
    expect(records.filter((record) => record.status === 502)).toHaveLength(2);
    // A disconnect is charged what was produced before it: more than nothing, less than a whole answer.
    const cut = produced.filter((item) => !item.finished && item.completionTokens > 0);
    expect(cut.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...cut.map((item) => item.completionTokens))).toBeLessThan(300);
  });
});
