import { generateApiKey } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, APIUserAbortError, AuthenticationError, BadRequestError, createChatClient, NotFoundError, type FetchFunction, type ResponseStreamEvent } from '../src/index.js';
import { droppingFetch } from './dropping-fetch.js';
import { startQuantumServer, type QuantumServer } from './start-quantum-server.js';

const apiKey = generateApiKey('live');
const noSleep = async () => undefined;
const weatherTool = { type: 'function' as const, name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const question = 'What is 12 * 7? Think first.';

async function events(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const seen: ResponseStreamEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

/** The message text of a response's output. */
const textOf = (response: { output: { type: string; content?: { text: string }[] }[] }) =>
  response.output.flatMap((item) => (item.type === 'message' ? item.content!.map((part) => part.text) : [])).join('');

describe('client.responses against the real handler', () => {
  let server: QuantumServer;
  /** Paced, so that a background response or a stream is still running when the test acts on it. */
  let slowServer: QuantumServer;
  beforeAll(async () => {
    [server, slowServer] = await Promise.all([startQuantumServer(), startQuantumServer({ engine: createReferenceEngine({ tokensPerSecond: 200 }) })]);
  });
  afterAll(() => Promise.all([server.close(), slowServer.close()]));

  it('should create a response as JSON, and retrieve the same one by id', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey });
    const response = await client.responses.create({ model: 'quantum-reasoner', input: question, metadata: { run: 'client' } });
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'quantum-reasoner', metadata: { run: 'client' } });
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(textOf(response).length).toBeGreaterThan(0);
    expect(response.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    expect(await client.responses.retrieve(response.id)).toEqual(response);
  });

  it('should stream typed events in sequence, and finalResponse() be the stored response', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey });
    const stream = client.responses.stream({ model: 'quantum-reasoner', input: question });
    const seen = await events(stream);
    expect(seen[0]!.type).toBe('response.created');
    expect(seen.at(-1)!.type).toBe('response.completed');
    expect(seen.map((event) => event.sequence_number)).toEqual(seen.map((_, index) => seen[0]!.sequence_number + index));
    const final = await stream.finalResponse();
    expect(stream.responseId).toBe(final.id);
    expect(final.status).toBe('completed');
    const deltas = seen.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    expect(deltas).toBe(textOf(final));
    expect(await client.responses.retrieve(final.id)).toEqual(final);
  });

  it('should run a tool round trip by previous_response_id, and list the input items page by page', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey });
    const first = await client.responses.create({ model: 'quantum-flash', input: 'What is the weather in Paris?', tools: [weatherTool] });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather' });
    const second = await client.responses.create({
      model: 'quantum-flash',
      previous_response_id: first.id,
      tools: [weatherTool],
      input: [
        { type: 'function_call_output', call_id: call!.type === 'function_call' ? call!.call_id : '', output: '{"temperature_c":18}' },
        { role: 'user', content: 'And in one word?' },
      ],
    });
    expect(second).toMatchObject({ status: 'completed', previous_response_id: first.id });
    const page1 = await client.responses.inputItems.list(second.id, { limit: 1, order: 'asc' });
    expect(page1).toMatchObject({ object: 'list', has_more: true });
    expect(page1.data).toHaveLength(1);
    expect(page1.data[0]).toMatchObject({ type: 'function_call_output' });
    const page2 = await client.responses.inputItems.list(second.id, { after: page1.last_id!, limit: 10, order: 'asc' });
    expect(page2).toMatchObject({ has_more: false });
    expect(page2.data.map((item) => item.type)).toEqual(['message']);
  });

  it('should delete a response: retrieving it then is NotFoundError with response_not_found', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey });
    const response = await client.responses.create({ model: 'quantum-lite', input: 'Hi' });
    expect(await client.responses.delete(response.id)).toEqual({ id: response.id, object: 'response.deleted', deleted: true });
    const error = await client.responses.retrieve(response.id).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'response_not_found' });
    await expect(client.responses.delete(response.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('should throw the API error classes as chat does: 400 with param, 401', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey, maxRetries: 0 });
    const bad = await client.responses.create({ model: 'quantum-lite', input: 'Hi', tools: [{ type: 'web_search' } as never] }).then(() => undefined, (caught: unknown) => caught);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect((bad as BadRequestError).param).toMatch(/^tools/);
    expect((bad as Error).message).toContain('web_search');
    const anonymous = createChatClient({ baseUrl: server.baseUrl, maxRetries: 0 });
    await expect(anonymous.responses.create({ model: 'quantum-lite', input: 'Hi' })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(anonymous.responses.stream({ model: 'quantum-lite', input: 'Hi' }).finalResponse()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('should retry a connection refused before the first byte, as chat calls do', async () => {
    let refused = 0;
    const flaky: FetchFunction = async (input, init) => {
      if (refused++ === 0) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      return fetch(input, init);
    };
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey, fetch: flaky, sleep: noSleep });
    const final = await client.responses.stream({ model: 'quantum-lite', input: 'Hi', store: false }).finalResponse();
    expect(final.status).toBe('completed');
    expect(refused).toBe(2);
  });

  for (const how of ['error', 'end'] as const) {
    it(`should resume a background stream on its own after the connection ${how === 'error' ? 'fails' : 'ends early'}, with starting_after, without gap or repeat`, async () => {
      const plain = createChatClient({ baseUrl: server.baseUrl, apiKey });
      const expected = await events(plain.responses.stream({ model: 'quantum-reasoner', input: question, tools: [weatherTool], background: true }));
      const dropping = droppingFetch(2, 900, how);
      const told: string[] = [];
      const client = createChatClient({ baseUrl: server.baseUrl, apiKey, fetch: dropping.fetch, sleep: noSleep });
      const stream = client.responses.stream({ model: 'quantum-reasoner', input: question, tools: [weatherTool], background: true }, { onResume: ({ state, attempt }) => told.push(`${state} ${attempt}`) });
      const seen = await events(stream);
      expect(dropping.dropped()).toBe(2);
      expect(told).toEqual(['reconnecting 1', 'resumed 1', 'reconnecting 1', 'resumed 1']);
      expect(dropping.requests.filter((line) => line.startsWith('GET'))).toEqual([
        expect.stringMatching(/^GET \/v1\/responses\/resp_\w+\?stream=true&starting_after=\d+ -$/),
        expect.stringMatching(/^GET \/v1\/responses\/resp_\w+\?stream=true&starting_after=\d+ -$/),
      ]);
      // The same events but for the ids the server drew and the times.
      const strip = (list: ResponseStreamEvent[]) => JSON.stringify(list).replace(/(resp|msg|rs|fc|call)_\w+/g, 'ID').replace(/"(created_at|completed_at)":\d+/g, '"$1":0');
      expect(strip(seen)).toBe(strip(expected));
      expect(await client.responses.retrieve(stream.responseId!)).toEqual(await stream.finalResponse());
    });
  }

  it('should resume a background stream dropped while its response still runs', async () => {
    const dropping = droppingFetch(1, 1200, 'error');
    const client = createChatClient({ baseUrl: slowServer.baseUrl, apiKey, fetch: dropping.fetch, sleep: noSleep });
    const stream = client.responses.stream({ model: 'quantum-lite', input: 'Write a short essay about rivers.', max_output_tokens: 300, background: true });
    const seen = await events(stream);
    expect(dropping.dropped()).toBe(1);
    expect(seen.at(-1)!.type).toMatch(/^response\.(completed|incomplete)$/);
    const final = await stream.finalResponse();
    const deltas = seen.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    expect(deltas).toBe(textOf(final));
  });

  for (const store of [true, false]) {
    it(`should not resume a foreground stream (store: ${store}): the server stopped it, so its drop is a connection error`, async () => {
      const dropping = droppingFetch(1, 900, 'end');
      const client = createChatClient({ baseUrl: slowServer.baseUrl, apiKey, fetch: dropping.fetch, sleep: noSleep });
      const stream = client.responses.stream({ model: 'quantum-reasoner', input: question, store });
      await expect(events(stream)).rejects.toBeInstanceOf(APIConnectionError);
      expect(dropping.requests.filter((line) => line.startsWith('GET'))).toEqual([]);
    });
  }

  it('should replay a stored response from starting_after with resume()', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey });
    const stream = client.responses.stream({ model: 'quantum-reasoner', input: question });
    const all = await events(stream);
    const after = all[4]!.sequence_number;
    const tail = await events(client.responses.resume(stream.responseId!, { startingAfter: after }));
    expect(tail).toEqual(all.filter((event) => event.sequence_number > after));
  });

  it('should answer background: true at once and stop it with cancel', async () => {
    const client = createChatClient({ baseUrl: slowServer.baseUrl, apiKey });
    const queued = await client.responses.create({ model: 'quantum-lite', input: 'Write a long essay about rivers.', max_output_tokens: 4000, background: true });
    expect(['queued', 'in_progress']).toContain(queued.status);
    const cancelled = await client.responses.cancel(queued.id);
    expect(cancelled).toMatchObject({ id: queued.id, status: 'cancelled' });
    expect((await client.responses.retrieve(queued.id)).status).toBe('cancelled');
  });

  it('should stop on the caller\'s abort with APIUserAbortError', async () => {
    const client = createChatClient({ baseUrl: slowServer.baseUrl, apiKey });
    const controller = new AbortController();
    const stream = client.responses.stream({ model: 'quantum-lite', input: 'Write a long essay about rivers.', max_output_tokens: 4000 }, { signal: controller.signal });
    const seen: ResponseStreamEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) {
        seen.push(event);
        if (event.type === 'response.output_text.delta') controller.abort();
      }
    })();
    await expect(reading).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen.at(-1)!.type).toBe('response.output_text.delta');
  });
});
