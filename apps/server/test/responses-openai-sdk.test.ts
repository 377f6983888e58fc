import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessServer, type InProcessServer } from './in-process-server.js';

// The Responses API through the ready server over real HTTP, read by the `openai` SDK's own code.
let server: InProcessServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startInProcessServer();
  client = new OpenAI({ apiKey: server.testKey, baseURL: `${server.origin}/v1`, maxRetries: 0 });
}, 45_000);

afterAll(async () => {
  await server?.close();
});

describe('the Responses API through the ready server, with the openai SDK', () => {
  it('creates a response (JSON), retrieves it and follows it with previous_response_id', async () => {
    const response = await client.responses.create({ model: 'quantum-reasoner', input: 'What is 12 * 7? Answer briefly.' });
    expect(response.status).toBe('completed');
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage?.total_tokens).toBe((response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0));
    const retrieved = await client.responses.retrieve(response.id);
    expect(retrieved.output_text).toBe(response.output_text);
    const followUp = await client.responses.create({ model: 'quantum-flash', input: 'And 12 * 8?', previous_response_id: response.id });
    expect(followUp.previous_response_id).toBe(response.id);
    const items = await client.responses.inputItems.list(followUp.id);
    expect(items.data.length).toBe(1);
  });

  it('streams a response with responses.create and responses.stream', async () => {
    const stream = await client.responses.create({ model: 'quantum-flash', input: 'Say hello.', stream: true });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(text.length).toBeGreaterThan(0);

    const final = await client.responses.stream({ model: 'quantum-flash', input: 'Say hello.' }).finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(text);
  });

  it('refuses what chat refuses, in the error envelope', async () => {
    await expect(client.responses.create({ model: 'quantum-flash', input: 'Hi', tools: [{ type: 'web_search_preview' }] })).rejects.toMatchObject({
      status: 400,
      code: 'unsupported_value',
      param: 'tools[0].type',
    });
    await expect(client.responses.retrieve('resp_unknown')).rejects.toMatchObject({ status: 404, code: 'response_not_found' });
  });
});
