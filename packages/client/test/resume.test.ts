import { generateApiKey } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient, type ChatStreamEvent } from '../src/index.js';
import { droppingFetch } from './dropping-fetch.js';
import { startQuantumServer, type QuantumServer } from './start-quantum-server.js';

const tools = ['get_weather', 'get_time'].map((name) => ({ type: 'function' as const, function: { name, description: `The ${name.slice(4)} in a city`, parameters: { type: 'object', properties: { city: { type: 'string' } } } } }));
const request = {
  model: 'quantum-reasoner',
  messages: [{ role: 'user' as const, content: 'What are the weather and the time in Paris? Think first.' }],
  tools,
  stream_options: { resumable: true },
};

const noSleep = async () => undefined;
const apiKey = generateApiKey('live');

async function events(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const seen: ChatStreamEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

describe('resumable streams in the client', () => {
  let server: QuantumServer;
  beforeAll(async () => {
    server = await startQuantumServer({ engine: createReferenceEngine({ tokensPerSecond: 3000 }) });
  });
  afterAll(() => server.close());

  for (const how of ['error', 'end'] as const) {
    for (const format of ['quantum', 'openai'] as const) {
      it(`should resume on its own after the connection ${how === 'error' ? 'fails' : 'ends early'}, the iterator seeing one stream without gap or repeat (${format})`, async () => {
        const plain = createChatClient({ baseUrl: server.baseUrl, apiKey, streamFormat: format });
        const uninterrupted = plain.chat.completions.stream(request);
        const expected = await events(uninterrupted);

        const dropping = droppingFetch(2, 700, how);
        const client = createChatClient({ baseUrl: server.baseUrl, apiKey, streamFormat: format, fetch: dropping.fetch, sleep: noSleep });
        const told: string[] = [];
        const stream = client.chat.completions.stream(request, { onResume: ({ state, attempt }) => told.push(`${state} ${attempt}`) });
        const seen = await events(stream);
        expect(dropping.dropped()).toBe(2);
        expect(told).toEqual(['reconnecting 1', 'resumed 1', 'reconnecting 1', 'resumed 1']);
        expect(dropping.requests.filter((line) => line.startsWith('GET')).length).toBe(2);
        expect(dropping.requests.at(-1)).toMatch(/^GET \/v1\/chat\/completions\/chatcmpl-\w+\/stream \d+$/);
        // The same events but for the ids the server drew (the completion's and the tool calls').
        const strip = (list: ChatStreamEvent[]) => JSON.stringify(list).replace(/chatcmpl-\w+|call_\w+/g, 'ID');
        expect(strip(seen)).toBe(strip(expected));
        const collected = await stream.collect();
        expect(collected.toolCalls.length).toBeGreaterThanOrEqual(2);
        const retrieved = await client.chat.completions.retrieve(stream.streamId!);
        expect(retrieved.choices[0]!.message.tool_calls?.map((call) => call.function)).toEqual(collected.toolCalls.map((call) => call.function));
      });
    }
  }

  it('should not resume a plain stream: its drop is an error, as before', async () => {
    const dropping = droppingFetch(1, 700, 'end');
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey, fetch: dropping.fetch, sleep: noSleep });
    const stream = client.chat.completions.stream({ ...request, stream_options: {} });
    await expect(events(stream)).rejects.toThrow(/before `data: \[DONE\]`/);
    expect(stream.streamId).toBeUndefined();
  });

  it('should resume a stored id after a frame, and cancel a running stream', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey });
    const stream = client.chat.completions.stream(request);
    const all = await events(stream);
    const tail = await events(client.chat.completions.resume(stream.streamId!, { after: 3 }));
    expect(tail.length).toBeGreaterThan(0);
    expect(tail.length).toBeLessThan(all.length);
    expect(JSON.stringify(all.slice(-tail.length))).toBe(JSON.stringify(tail));

    const slow = createChatClient({ baseUrl: server.baseUrl, apiKey });
    const long = slow.chat.completions.stream({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Write a long essay about rivers.' }], max_tokens: 4000, stream_options: { resumable: true } });
    const iterator = long[Symbol.asyncIterator]();
    await iterator.next();
    expect(await slow.chat.completions.cancel(long.streamId!)).toEqual({ id: long.streamId, object: 'chat.completion.stream', status: 'cancelled' });
    await expect((async () => {
      for (let step = await iterator.next(); !step.done; step = await iterator.next());
    })()).rejects.toMatchObject({ code: 'cancelled' });
  });
});
