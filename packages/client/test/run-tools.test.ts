import { generateApiKey } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// zod is no dependency of the client (the runner reaches schemas through Standard Schema);
// these tests borrow the core's copy.
import * as z from 'zod';
import { createChatClient, defineTool, runTools, type ChatClient } from '../src/index.js';
import { startQuantumServer, type QuantumServer } from './start-quantum-server.js';

let server: QuantumServer;
let client: ChatClient;
beforeAll(async () => {
  server = await startQuantumServer();
  client = createChatClient({ baseUrl: server.baseUrl, apiKey: generateApiKey('live') });
});
afterAll(() => server.close());

describe('runTools against Fastify and the reference engine', () => {
  it('should call a zod-typed weather tool and answer with its result', async () => {
    const calls: Array<{ city: string; unit: 'celsius' | 'fahrenheit' }> = [];
    const weather = defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: z.object({ city: z.string().min(1), unit: z.enum(['celsius', 'fahrenheit']).default('celsius') }),
      run: async (args) => {
        calls.push(args);
        return { city: args.city, temperature: 21, unit: args.unit };
      },
    });
    const result = await runTools({ client, model: 'quantum-flash', messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [weather] });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ city: expect.any(String), unit: expect.stringMatching(/^(celsius|fahrenheit)$/) });
    expect(result.endedBy).toBe('answer');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(result.finalMessage.content).toEqual(expect.any(String));
    expect(result.finalMessage.tool_calls ?? []).toEqual([]);
    const [, assistant, toolMessage, answer] = result.messages;
    expect(assistant).toMatchObject({ role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'get_weather' } }] });
    expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: (assistant as { tool_calls: Array<{ id: string }> }).tool_calls[0]!.id });
    expect(JSON.parse((toolMessage as { content: string }).content)).toMatchObject({ temperature: 21 });
    expect(answer).toEqual({ role: 'assistant', content: result.finalMessage.content });
    expect(result.usage.total_tokens).toBeGreaterThan(0);
  });

  it('should send the zod schema as JSON Schema in the request', async () => {
    let sentTools: unknown;
    const spying = createChatClient({
      baseUrl: server.baseUrl,
      apiKey: generateApiKey('live'),
      fetch: (input, init) => {
        sentTools ??= (JSON.parse(String(init.body)) as { tools: unknown }).tools;
        return fetch(input, init);
      },
    });
    const tool = defineTool({ name: 'lookup_stock', parameters: z.object({ symbol: z.string().describe('Ticker') }), run: () => 'ok' });
    await runTools({ client: spying, model: 'quantum-lite', messages: [{ role: 'user', content: 'Hi' }], tools: [tool], toolChoice: 'required' });
    expect(sentTools).toEqual([
      {
        type: 'function',
        function: { name: 'lookup_stock', parameters: { type: 'object', properties: { symbol: { type: 'string', description: 'Ticker' } }, required: ['symbol'] } },
      },
    ]);
  });

  it('should feed arguments the tool refuses back to the model as an error result, then answer', async () => {
    // The engine writes arguments valid for the JSON Schema; the refinement (not expressible in it) refuses them.
    let ran = false;
    const picky = defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: z.object({ city: z.string() }).refine((args) => args.city === 'Atlantis', { message: 'Only Atlantis is supported', path: ['city'] }),
      run: () => {
        ran = true;
        return 'sunny';
      },
    });
    const result = await runTools({ client, model: 'quantum-lite', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [picky], toolChoice: 'required' });
    expect(ran).toBe(false);
    const [toolResult] = result.steps[0]!.toolResults;
    expect(toolResult!.isError).toBe(true);
    expect(JSON.parse(toolResult!.content)).toEqual({ error: "The arguments do not match the tool's schema: city: Only Atlantis is supported." });
    expect(result.endedBy).toBe('answer');
    expect(result.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
  });

  it('should feed a thrown tool error back as an error result', async () => {
    const broken = defineTool({
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      run: () => {
        throw new Error('weather service down');
      },
    });
    const result = await runTools({ client, model: 'quantum-reasoner', messages: [{ role: 'user', content: 'What is the weather in Oslo?' }], tools: [broken] });
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ isError: true, content: '{"error":"weather service down"}' });
    expect(result.endedBy).toBe('answer');
  });

  it('should run parallel calls of several matching tools', async () => {
    const seen: string[] = [];
    const tools = ['get_weather', 'get_time'].map((name) =>
      defineTool({ name, description: name === 'get_weather' ? 'Weather in a city' : 'Local time in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, run: () => (seen.push(name), `${name} ok`) }),
    );
    const result = await runTools({ client, model: 'quantum-flash', messages: [{ role: 'user', content: 'What is the weather and the time in Rome?' }], tools });
    expect(seen.sort()).toEqual(['get_time', 'get_weather']);
    expect(result.steps[0]!.toolResults).toHaveLength(2);
    expect(result.endedBy).toBe('answer');
  });
});
