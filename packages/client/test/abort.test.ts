import { setTimeout as delay } from 'node:timers/promises';
import { generateApiKey, type ChatEngine, type ChatRequestRecord } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionTimeoutError, APIUserAbortError, createChatClient, type ChatClient } from '../src/index.js';
import { startQuantumServer, type QuantumServer } from './start-quantum-server.js';

const reference = createReferenceEngine();
/** Engine aborts seen by the server, by request id. */
const engineAborts = new Set<string>();
const settled: ChatRequestRecord[] = [];

/** The reference engine, slowed down so that a client can leave in the middle of a stream. */
const slowEngine: ChatEngine = {
  async *generate(request, context) {
    context.signal.addEventListener('abort', () => engineAborts.add(context.requestId), { once: true });
    const firstDelay = request.messages.some((message) => message.content === 'slow start') ? 1_000 : 0;
    await delay(firstDelay, undefined, { signal: context.signal });
    for await (const event of reference.generate(request, context)) {
      yield event;
      await delay(40, undefined, { signal: context.signal });
    }
  },
};

let server: QuantumServer;
let client: ChatClient;
beforeAll(async () => {
  server = await startQuantumServer({ engine: slowEngine, onRequestSettled: (record) => settled.push(record) });
  client = createChatClient({ baseUrl: server.baseUrl, apiKey: generateApiKey('live'), maxRetries: 0 });
});
afterAll(() => server.close());

const request = { model: 'quantum-lite', messages: [{ role: 'user' as const, content: 'Write a long essay about rivers and mountains.' }] };

/** Waits until the server has settled the request with this id. */
async function settledRecord(requestId: string | undefined): Promise<ChatRequestRecord> {
  for (let waited = 0; waited < 5_000; waited += 20) {
    const record = settled.find((candidate) => candidate.requestId === requestId);
    if (record !== undefined) return record;
    await delay(20);
  }
  throw new Error(`request ${String(requestId)} was never settled`);
}

describe('cancelling a stream', () => {
  it('should cancel the HTTP request when the loop breaks, and the server should see it', async () => {
    const stream = client.chat.completions.stream(request);
    let contentEvents = 0;
    for await (const event of stream) {
      if (event.type === 'content') contentEvents++;
      if (contentEvents === 2) break;
    }
    const record = await settledRecord(stream.requestId);
    expect(record.interrupted).toBe(true);
    expect(engineAborts.has(record.requestId)).toBe(true);
    await expect(stream.collect()).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it('should reject with APIUserAbortError when the caller aborts mid-stream, and the server should see it', async () => {
    const controller = new AbortController();
    const stream = client.chat.completions.stream(request, { signal: controller.signal });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const event of stream) {
        seen.push(event.type);
        if (seen.length === 2) controller.abort();
      }
    })().catch((error: unknown) => error);
    expect(APIUserAbortError.isInstance(failure)).toBe(true);
    const record = await settledRecord(stream.requestId);
    expect(record.interrupted).toBe(true);
  });

  it('should stop with stream.abort() from outside the loop', async () => {
    const stream = client.chat.completions.stream(request);
    const collecting = stream.collect();
    await delay(150);
    stream.abort();
    await expect(collecting).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it('should not send a request whose signal is already aborted', async () => {
    let fetches = 0;
    const counting = createChatClient({ baseUrl: server.baseUrl, apiKey: 'k', fetch: (input, init) => (fetches++, fetch(input, init)) });
    await expect(counting.chat.completions.create(request, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(APIUserAbortError);
    await expect(counting.chat.completions.stream(request, { signal: AbortSignal.abort() }).collect()).rejects.toBeInstanceOf(APIUserAbortError);
    expect(fetches).toBe(0);
  });

  it('should time out when the first byte takes longer than `timeout`', async () => {
    const stream = client.chat.completions.stream({ ...request, messages: [{ role: 'user', content: 'slow start' }] }, { timeout: 200 });
    await expect(stream.collect()).rejects.toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('should not apply the timeout to a stream that has started', async () => {
    // About 25 events 40 ms apart: well over the timeout in all.
    const collected = await client.chat.completions.stream({ ...request, max_tokens: 25 }, { timeout: 500 }).collect();
    expect(collected.finishReason).toBe('length');
  });
});
