import { generateApiKey, type ChatCompletion } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient, type ChatClient, type CollectedCompletion } from '../src/index.js';
import { startQuantumServer, type QuantumServer } from './start-quantum-server.js';

const models = ['quantum-lite', 'quantum-flash', 'quantum-reasoner', 'quantum-pro'] as const;
const formats = ['quantum', 'openai'] as const;
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
  },
};

let server: QuantumServer;
const clients = {} as Record<(typeof formats)[number], ChatClient>;

beforeAll(async () => {
  server = await startQuantumServer();
  const apiKey = generateApiKey('live');
  for (const format of formats) clients[format] = createChatClient({ baseUrl: server.baseUrl, apiKey, streamFormat: format });
});
afterAll(() => server.close());

/** The non-streaming answer in the shape a collected stream has, minus what differs per request. */
function comparable(completion: ChatCompletion): Omit<CollectedCompletion, 'id' | 'toolCalls'> & { toolCalls: unknown[] } {
  const choice = completion.choices[0]!;
  return {
    model: completion.model,
    reasoning: choice.message.reasoning_content ?? '',
    content: choice.message.content ?? '',
    toolCalls: (choice.message.tool_calls ?? []).map((call) => call.function),
    finishReason: choice.finish_reason,
    usage: completion.usage,
  };
}

function comparableCollected(collected: CollectedCompletion) {
  const { id: _id, ...rest } = collected;
  return { ...rest, toolCalls: collected.toolCalls.map((call) => call.function) };
}

describe('chat.completions against Fastify and the reference engine', () => {
  for (const format of formats) {
    for (const model of models) {
      it(`should give the same answer streamed and not [${model}, ${format} format]`, async () => {
        const client = clients[format];
        const request = { model, messages: [{ role: 'user' as const, content: 'Explain in two sentences why the sky is blue.' }], seed: 7 };
        const completion = await client.chat.completions.create(request);
        expect(completion).toMatchObject({ object: 'chat.completion', model });
        expect(completion.id).toMatch(/^chatcmpl-[0-9A-Za-z]{24,}$/);
        const stream = client.chat.completions.stream(request);
        const collected = await stream.collect();
        expect(collected.id).toMatch(/^chatcmpl-/);
        expect(stream.requestId).toEqual(expect.any(String));
        expect(comparableCollected(collected)).toEqual(comparable(completion));
        expect(collected.content.length).toBeGreaterThan(0);
        if (model === 'quantum-reasoner') expect(collected.reasoning.length).toBeGreaterThan(0);
        else expect(collected.reasoning).toBe('');
      });
    }
  }

  for (const format of formats) {
    it(`should rebuild the same tool calls streamed and not, with tool_choice required [${format} format]`, async () => {
      const client = clients[format];
      const request = { model: 'quantum-flash', messages: [{ role: 'user' as const, content: 'Hello there' }], tools: [weatherTool], tool_choice: 'required' as const };
      const completion = await client.chat.completions.create(request);
      const collected = await client.chat.completions.stream(request).collect();
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      expect(completion.choices[0]?.message.content).toBeNull();
      expect(comparableCollected(collected)).toEqual(comparable(completion));
      const call = collected.toolCalls[0]!;
      expect(call.id).toMatch(/^call_[0-9A-Za-z]{24}$/);
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toMatchObject({ city: expect.any(String) });
    });
  }

  it('should call a tool with tool_choice auto only when the message asks for it', async () => {
    const client = clients.quantum;
    const asks = await client.chat.completions.stream({ model: 'quantum-reasoner', messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [weatherTool], tool_choice: 'auto' }).collect();
    expect(asks.finishReason).toBe('tool_calls');
    expect(asks.toolCalls.map((call) => call.function.name)).toEqual(['get_weather']);
    const chats = await client.chat.completions.create({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Tell me a joke about cats.' }], tools: [weatherTool], tool_choice: 'auto' });
    expect(chats.choices[0]?.finish_reason).toBe('stop');
    expect(chats.choices[0]?.message.tool_calls ?? []).toEqual([]);
  });

  it('should report usage on a separate chunk with stream_options.include_usage, and stop at max_tokens', async () => {
    const collected = await clients.openai.chat.completions
      .stream({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Write a long story about the sea.' }], max_tokens: 5, stream_options: { include_usage: true } })
      .collect();
    expect(collected.finishReason).toBe('length');
    expect(collected.usage).toMatchObject({ completion_tokens: 5 });
  });

  for (const format of formats) {
    it(`should see usage exactly once per stream, with and without include_usage [${format} format]`, async () => {
      const request = { model: 'quantum-lite', messages: [{ role: 'user' as const, content: 'Say hi.' }] };
      for (const streamOptions of [{}, { stream_options: { include_usage: true } }]) {
        const usages: unknown[] = [];
        for await (const event of clients[format].chat.completions.stream({ ...request, ...streamOptions })) if (event.type === 'usage') usages.push(event.usage);
        expect(usages, JSON.stringify(streamOptions)).toHaveLength(1);
      }
    });
  }
});

describe('models against Fastify', () => {
  it('should list the four models in order, with the plan each requires', async () => {
    const list = await clients.quantum.models.list();
    expect(list.data.map((model) => [model.id, model.requires_plan])).toEqual([
      ['quantum-lite', null],
      ['quantum-flash', null],
      ['quantum-reasoner', null],
      ['quantum-pro', 'elite'],
    ]);
  });

  it('should list models without a key and retrieve one by id', async () => {
    const anonymous = createChatClient({ baseUrl: server.baseUrl });
    expect((await anonymous.models.list()).data).toHaveLength(4);
    expect(await clients.quantum.models.retrieve('quantum-pro')).toMatchObject({ id: 'quantum-pro', object: 'model', requires_plan: 'elite' });
  });
});
