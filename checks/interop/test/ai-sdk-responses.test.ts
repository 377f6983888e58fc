/**
 * The AI SDK's default OpenAI provider (`createOpenAI({ baseURL })(model)`, which calls the
 * Responses API) against the real server over HTTP: `generateText` and `streamText` with
 * multi-step tools (`stopWhen`), the reasoner's trace as reasoning parts, structured output
 * (`Output.object`), all with the provider's default `store: true`, so that later steps and
 * turns send earlier reasoning and answers as `item_reference`s the server resolves from its
 * store (function calls go back whole: the provider references only its own items).
 */
import { createOpenAI } from '@ai-sdk/openai';
import type { ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { aiSdkVersions } from './support/ai-sdk-client.js';
import { createCompatRecorder, installedVersion } from './support/compat-recorder.js';
import { question, weatherQuestion } from './support/fixtures.js';
import { startInteropServer, type InteropServer } from './support/interop-server.js';

const compat = createCompatRecorder('ai-sdk-responses');
let server: InteropServer;

beforeAll(async () => {
  server = await startInteropServer();
});

afterAll(async () => {
  compat.flush();
  await server?.close();
});

/** The provider, with a fetch that passes everything through and keeps the bodies sent to `/responses`. */
function provider() {
  const bodies: any[] = [];
  const openai = createOpenAI({
    baseURL: `${server.origin}/v1`,
    apiKey: server.testKey,
    fetch: async (input, init) => {
      if (String(input).endsWith('/responses') && typeof init?.body === 'string') bodies.push(JSON.parse(init.body));
      return fetch(input, init);
    },
  });
  return { openai, bodies };
}

const calls: { city: string }[] = [];

describe(`@ai-sdk/openai ${installedVersion('@ai-sdk/openai')} (the default provider: the Responses API)`, () => {
  // @ai-sdk/openai 4 is the provider of `ai` 7.
  const sdk = aiSdkVersions.at(-1)!;
  const { generateText, streamText, stepCountIs, Output } = sdk.ai;
  const prove = (feature: string, detail?: string) =>
    compat.prove({ client: '@ai-sdk/openai', version: installedVersion('@ai-sdk/openai'), format: 'any', feature: `responses: ${feature}`, outcome: 'works', ...(detail ? { detail } : {}) });
  const tools = {
    get_weather: sdk.ai.tool({
      description: 'Get the current weather for a city',
      inputSchema: z.object({ city: z.string().describe('The city name') }),
      execute: async ({ city }) => {
        calls.push({ city });
        return { city, temperature_c: 18, sky: 'cloudy' };
      },
    }),
  } satisfies ToolSet;

  it('should answer generateText with text, finish reason and usage', async () => {
    const { openai } = provider();
    const result = await generateText({ model: openai('quantum-flash') as never, prompt: question, maxRetries: 0 });
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.finishReason).toBe('stop');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.response.id).toMatch(/^resp_/);
    prove('create', '`openai(model)`, the default');
  });

  it('should run multi-step tools with generateText, the reasoner\'s trace going back as an item reference (store: true)', async () => {
    calls.length = 0;
    const { openai, bodies } = provider();
    const result = await generateText({ model: openai('quantum-reasoner') as never, prompt: weatherQuestion, tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.finishReason).toBe('tool-calls');
    expect(result.steps[0]!.reasoningText?.length ?? 0).toBeGreaterThan(0);
    expect(result.steps[0]!.toolCalls.map((call) => [call.toolName, call.input])).toEqual([['get_weather', { city: 'Paris' }]]);
    expect(result.finishReason).toBe('stop');
    expect(result.text).toMatch(/Paris.*18|18.*Paris/s);
    expect(calls).toEqual([{ city: 'Paris' }]);
    // The provider's default (store: true): the first step's reasoning item is sent back by
    // reference only, and the server resolves it from its store; the call goes back whole.
    expect(bodies).toHaveLength(2);
    expect(bodies[1].input).toContainEqual({ type: 'item_reference', id: expect.stringMatching(/^rs_/) });
    expect(bodies[1].input).toContainEqual(expect.objectContaining({ type: 'function_call', name: 'get_weather' }));
    expect(bodies[1].input).toContainEqual(expect.objectContaining({ type: 'function_call_output' }));
    prove('tools', 'multi-step (`stopWhen`) with `generateText` and `streamText`');
    prove('stored state', 'reasoning items sent back as `item_reference` (default `store: true`)');
  });

  it('should continue a conversation whose earlier answer the provider sends as an item reference', async () => {
    const { openai, bodies } = provider();
    const first = await generateText({ model: openai('quantum-flash') as never, prompt: question, maxRetries: 0 });
    const second = await generateText({
      model: openai('quantum-flash') as never,
      messages: [{ role: 'user', content: question }, ...first.response.messages, { role: 'user', content: 'And twice that?' }],
      maxRetries: 0,
    });
    expect(bodies[1].input).toContainEqual({ type: 'item_reference', id: expect.stringMatching(/^msg_/) });
    expect(second.finishReason).toBe('stop');
    expect(second.text.length).toBeGreaterThan(0);
    prove('stored state', 'earlier answers sent back as `item_reference`');
  });

  it('should run multi-step tools with streamText', async () => {
    calls.length = 0;
    const { openai, bodies } = provider();
    const streamed = streamText({ model: openai('quantum-flash') as never, prompt: weatherQuestion, tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    const parts: any[] = [];
    for await (const part of streamed.fullStream) parts.push(part);
    expect(parts.filter((part) => part.type === 'error')).toEqual([]);
    expect(parts.filter((part) => part.type === 'tool-call').map((part) => [part.toolName, part.input])).toEqual([['get_weather', { city: 'Paris' }]]);
    expect(parts.filter((part) => part.type === 'finish-step').map((part) => part.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(await streamed.text).toMatch(/Paris.*18|18.*Paris/s);
    expect(calls).toEqual([{ city: 'Paris' }]);
    expect(bodies[1].input).toContainEqual(expect.objectContaining({ type: 'function_call', name: 'get_weather' }));
    prove('stream');
    prove('tools', 'multi-step (`stopWhen`) with `generateText` and `streamText`');
  });

  it('should show the reasoner\'s trace as reasoning, with generateText and streamText', async () => {
    const { openai } = provider();
    const generated = await generateText({ model: openai('quantum-reasoner') as never, prompt: question, maxRetries: 0 });
    expect(generated.reasoningText?.length ?? 0).toBeGreaterThan(0);
    expect(generated.text.length).toBeGreaterThan(0);
    expect(generated.usage.outputTokenDetails?.reasoningTokens ?? 0).toBeGreaterThan(0);
    const streamed = streamText({ model: openai('quantum-reasoner') as never, prompt: question, maxRetries: 0 });
    const parts: any[] = [];
    for await (const part of streamed.fullStream) parts.push(part);
    const reasoning = parts.filter((part) => part.type === 'reasoning-delta').map((part) => part.text).join('');
    expect(reasoning).toBe(generated.reasoningText);
    expect(await streamed.text).toBe(generated.text);
    prove('reasoning', 'reasoning parts, streamed and not');
  });

  it('should give structured output with Output.object', async () => {
    const Place = z.object({ city: z.string(), country: z.enum(['France', 'Japan', 'Norway']), population: z.number().int().min(0) });
    const { openai, bodies } = provider();
    const result = await generateText({ model: openai('quantum-flash') as never, prompt: 'Tell me about life in Tokyo, Japan, as JSON.', output: Output.object({ schema: Place }), maxRetries: 0 });
    expect(Place.parse(result.output)).toMatchObject({ city: 'Tokyo', country: 'Japan' });
    expect(bodies[0].text.format).toMatchObject({ type: 'json_schema', strict: true });
    prove('structured output', '`Output.object`');
  });
});
