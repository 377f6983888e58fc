import type { AddressInfo } from 'node:net';
import { insecureAcceptAnyApiKey, builtinModels, createModelRegistry, type ChatEngine } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamEngine } from '../src/index.js';
import { readSpecStream } from '@quantum-chat/conformance';
import { apiKey, postChat, startFrontServer, type FrontServer } from './helpers/start-front-server.js';

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the current weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
  },
};

const requests: Record<string, Record<string, unknown>> = {
  'an open question': { model: 'quantum-lite', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me about the ocean and its tides.' }] },
  'a reasoner question': { model: 'quantum-reasoner', messages: [{ role: 'user', content: 'What is 12 * 7?' }] },
  'a tool the model chooses': { model: 'quantum-flash', messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [weatherTool] },
  'a required tool': { model: 'quantum-pro', messages: [{ role: 'user', content: 'Hi' }], tools: [weatherTool], tool_choice: 'required' },
  'a tool result': {
    model: 'quantum-flash',
    messages: [
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"temperature":21,"sky":"clear"}' },
    ],
    tools: [weatherTool],
  },
  'a token limit': { model: 'quantum-reasoner', messages: [{ role: 'user', content: 'Explain photosynthesis in detail.' }], max_tokens: 12 },
  'sampling fields': { model: 'quantum-lite', messages: [{ role: 'user', content: 'Name three colours.' }], temperature: 0.2, top_p: 0.9, seed: 42, stop: ['zzz'], user: 'u-1' },
};

/** What each direct answer must show, so the comparison is never between two empty answers. */
const shapes: Record<string, { finishReason: string; reasoning: boolean; toolCalls: boolean }> = {
  'an open question': { finishReason: 'stop', reasoning: false, toolCalls: false },
  'a reasoner question': { finishReason: 'stop', reasoning: true, toolCalls: false },
  'a tool the model chooses': { finishReason: 'tool_calls', reasoning: false, toolCalls: true },
  'a required tool': { finishReason: 'tool_calls', reasoning: false, toolCalls: true },
  'a tool result': { finishReason: 'stop', reasoning: false, toolCalls: false },
  'a token limit': { finishReason: 'length', reasoning: true, toolCalls: false },
  'sampling fields': { finishReason: 'stop', reasoning: false, toolCalls: false },
};

/** A completion without what legitimately differs between two servers: ids and time. */
function comparable(body: { choices: { message: { tool_calls?: { id: string }[] } }[] } & Record<string, unknown>) {
  const { id: _id, created: _created, ...rest } = body;
  const choices = body.choices.map((choice) => ({
    ...choice,
    message: { ...choice.message, ...(choice.message.tool_calls ? { tool_calls: choice.message.tool_calls.map(({ id: _callId, ...call }) => call) } : {}) },
  }));
  return { ...rest, choices };
}

function streamSummary(text: string, format: 'quantum' | 'openai', includeUsage = true) {
  const { reasoning, content, toolCalls, finishReason, usage, error, done } = readSpecStream(text, { format, includeUsage });
  return { reasoning, content, toolCalls: toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args })), finishReason, usage, error, done };
}

describe.each([
  { path: '/v1', format: 'quantum' as const },
  { path: '/compat/v1', format: 'openai' as const },
])('a front server whose upstream is our own back server at $path ($format stream format)', ({ path, format }) => {
  let back: FastifyInstance;
  let backUrl: string;
  let front: FrontServer;

  beforeAll(async () => {
    back = Fastify();
    const engine = createReferenceEngine();
    await back.register(fastifyQuantumChat, { prefix: '/v1', accessControl: insecureAcceptAnyApiKey(), engine });
    await back.register(fastifyQuantumChat, { prefix: '/compat/v1', accessControl: insecureAcceptAnyApiKey(), engine, streamFormat: 'openai' });
    await back.listen({ port: 0, host: '127.0.0.1' });
    backUrl = `http://127.0.0.1:${(back.server.address() as AddressInfo).port}`;
    const engines: Record<string, ChatEngine> = {};
    for (const model of builtinModels) engines[model.id] = createUpstreamEngine({ baseUrl: `${backUrl}${path}`, model: model.id, apiKey });
    front = await startFrontServer('fastify', { accessControl: insecureAcceptAnyApiKey(), registry: createModelRegistry({ engine: createReferenceEngine(), engines }) });
  });
  afterAll(async () => {
    await front.close();
    back.server.closeAllConnections();
    await back.close();
  });

  for (const [name, request] of Object.entries(requests)) {
    it(`should give the back server's answer to ${name}, not streaming`, async () => {
      const direct = await postChat(`${backUrl}/v1`, request);
      const chained = await postChat(front.baseUrl, request);
      expect(chained.status).toBe(200);
      expect(direct.status).toBe(200);
      expect(comparable(await chained.json())).toEqual(comparable(await direct.json()));
    });

    it(`should give the back server's answer to ${name}, streaming`, async () => {
      const streaming = { ...request, stream: true, stream_options: { include_usage: true } };
      const direct = streamSummary(await (await postChat(`${backUrl}/v1`, streaming)).text(), 'quantum');
      const chained = streamSummary(await (await postChat(front.baseUrl, streaming)).text(), 'quantum');
      expect(direct.done).toBe(true);
      expect({ finishReason: direct.finishReason, reasoning: direct.reasoning !== '', toolCalls: direct.toolCalls.length > 0 }).toEqual(shapes[name]);
      expect(chained).toEqual(direct);
    });
  }

  it(`should have sent the back server ${format} streams`, async () => {
    const response = await postChat(`${backUrl}${path}`, { ...requests['a reasoner question'], stream: true });
    const text = await response.text();
    expect(text.includes('event: thought_trace')).toBe(format === 'quantum');
    expect(streamSummary(text, format, false).reasoning).not.toBe('');
  });
});
