import { insecureAcceptAnyApiKey, type ChatEngine } from '@quantum-chat/core';
import { validateWithSchema } from '@quantum-chat/core/json-schema';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createLlamaEngine, type LlamaEngine } from '../src/index.js';
import { readSpecStream } from '@quantum-chat/conformance';
import { postChat, startHost, type Host, type HostKind } from './helpers/start-host.js';
import { tinyModelFile } from './helpers/tiny-model.js';

let model: Awaited<ReturnType<typeof tinyModelFile>>;
let engine: LlamaEngine;

beforeAll(async () => {
  model = await tinyModelFile();
  // One sequence and no queue: a request left running would make the next one 503.
  engine = createLlamaEngine({ modelPath: model.path, contextSize: 1024, parallel: 1, maxQueue: 0, threads: 1 });
  await engine.ready;
});

afterAll(async () => {
  await engine?.dispose();
  await model?.remove();
});

const weatherParameters = {
  type: 'object',
  properties: { city: { enum: ['Oslo', 'Paris', 'Lima'] }, days: { enum: [1, 2, 3] } },
  required: ['city', 'days'],
  additionalProperties: false,
};

describe.each<HostKind>(['express', 'fastify'])('the tiny GGUF behind %s', (kind) => {
  let host: Host;

  beforeAll(async () => {
    host = await startHost(kind, { engine, accessControl: insecureAcceptAnyApiKey() });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('answers without streaming, with usage from the model\'s tokenizer', async () => {
    const response = await postChat(host.baseUrl, { model: 'quantum-flash', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8, temperature: 0 });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.object).toBe('chat.completion');
    expect(['stop', 'length']).toContain(body.choices[0].finish_reason);
    expect(typeof body.choices[0].message.content).toBe('string');
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBeLessThanOrEqual(8);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('streams the same answer as it answers whole', async () => {
    const request = { model: 'quantum-flash', messages: [{ role: 'user', content: 'Tell me' }], max_tokens: 10, temperature: 0 };
    const whole = await (await postChat(host.baseUrl, request)).json();
    const response = await postChat(host.baseUrl, { ...request, stream: true });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const stream = readSpecStream(await response.text());
    expect(stream.done).toBe(true);
    expect(stream.content).toBe(whole.choices[0].message.content);
    expect(stream.finishReason).toBe(whole.choices[0].finish_reason);
    expect(stream.usage).toMatchObject({ prompt_tokens: whole.usage.prompt_tokens, completion_tokens: whole.usage.completion_tokens });
  });

  it('calls the named tool with arguments that validate', async () => {
    const response = await postChat(host.baseUrl, {
      model: 'quantum-flash',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherParameters } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      max_tokens: 64,
      stream: true,
    });
    const stream = readSpecStream(await response.text());
    expect(stream.finishReason).toBe('tool_calls');
    expect(stream.toolCalls).toHaveLength(1);
    expect(stream.toolCalls[0]!.name).toBe('get_weather');
    expect(validateWithSchema(weatherParameters, JSON.parse(stream.toolCalls[0]!.arguments))).toEqual([]);
  });

  it('answers tool_choice required with one of the tools, arguments valid', async () => {
    const response = await postChat(host.baseUrl, {
      model: 'quantum-flash',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: weatherParameters } },
        { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { enum: ['UTC', 'CET'] } }, required: ['zone'] } } },
      ],
      tool_choice: 'required',
      max_tokens: 64,
    });
    const body = await response.json();
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    const [call] = body.choices[0].message.tool_calls;
    expect(['get_weather', 'get_time']).toContain(call.function.name);
    const schema = call.function.name === 'get_weather' ? weatherParameters : { type: 'object', required: ['zone'] };
    expect(validateWithSchema(schema, JSON.parse(call.function.arguments))).toEqual([]);
  });

  it('reads a tool result back and answers', async () => {
    const response = await postChat(host.baseUrl, {
      model: 'quantum-flash',
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","days":1}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"celsius":4}' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherParameters } }],
      tool_choice: 'none',
      max_tokens: 6,
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    // The tool result is part of the prompt the template rendered.
    const withoutResult = await (
      await postChat(host.baseUrl, { model: 'quantum-flash', messages: [{ role: 'user', content: 'Weather in Oslo?' }], max_tokens: 1 })
    ).json();
    expect(body.usage.prompt_tokens).toBeGreaterThan(withoutResult.usage.prompt_tokens + '{"celsius":4}'.length);
  });

  it('answers response_format json_schema with JSON that parses and validates', async () => {
    const schema = { type: 'object', properties: { answer: { enum: ['yes', 'no'] }, sure: { type: 'boolean' } }, required: ['answer', 'sure'], additionalProperties: false };
    const response = await postChat(host.baseUrl, {
      model: 'quantum-flash',
      messages: [{ role: 'user', content: 'Is it?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'verdict', schema } },
      max_tokens: 64,
    });
    const body = await response.json();
    expect(validateWithSchema(schema, JSON.parse(body.choices[0].message.content))).toEqual([]);
  });

  it('stops generating when the client leaves mid-stream, so the one sequence serves the next request', async () => {
    // A host of its own whose engine notes how each answer ended.
    const endings: string[] = [];
    const watched: ChatEngine = {
      ...engine,
      async *generate(request, context) {
        let finished = false;
        try {
          for await (const event of engine.generate(request, context)) {
            if (event.type === 'finish') finished = true;
            yield event;
          }
        } finally {
          endings.push(finished ? 'finished' : 'stopped');
        }
      },
    };
    const watchedHost = await startHost(kind, { engine: watched, accessControl: insecureAcceptAnyApiKey() });
    onTestFinished(() => watchedHost.close());
    const leaving = new AbortController();
    const response = await postChat(watchedHost.baseUrl, { model: 'quantum-flash', messages: [{ role: 'user', content: 'Go on' }], max_tokens: 900, temperature: 1, seed: 5, stream: true }, { signal: leaving.signal });
    const reader = response.body!.getReader();
    await reader.read();
    leaving.abort();
    await reader.cancel().catch(() => undefined);
    // The server notices the closed socket on its next write; the answer then ends without its finish.
    for (let attempt = 0; endings.length === 0 && attempt < 500; attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(endings).toEqual(['stopped']);
    // maxQueue 0: were the left generation still running, this would be 503 overloaded.
    const next = await postChat(watchedHost.baseUrl, { model: 'quantum-flash', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 });
    expect(next.status).toBe(200);
  });
});
