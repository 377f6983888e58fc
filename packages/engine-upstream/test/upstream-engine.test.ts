import { gzipSync } from 'node:zlib';
import type { ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';
import { Agent, errors } from 'undici';
import { createWatchedEngineContext } from '@quantum-chat/conformance';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamEngine, type UpstreamEngineOptions } from '../src/index.js';
import { contentChunk, pause, sseHeaders, startUpstreamServer, type UpstreamScenario, type UpstreamServer } from './helpers/start-upstream-server.js';

const request: ChatEngineRequest = {
  model: 'quantum-flash',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather?', name: 'ada' },
    { role: 'assistant', content: null, reasoning: 'I should call the tool.', toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', content: '{"sky":"clear"}', toolCallId: 'call_1' },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather', description: null, parameters: { type: 'object' }, strict: null } }],
  toolChoice: 'auto',
  parallelToolCalls: false,
  temperature: 0.7,
  maxTokens: 4096,
  topP: 0.9,
  stop: ['END'],
  seed: 7,
  user: 'u-1',
  reasoning: false,
};

const servers: UpstreamServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function run(scenario: UpstreamScenario, options: Partial<UpstreamEngineOptions> = {}, engineRequest = request) {
  const server = await startUpstreamServer(scenario);
  servers.push(server);
  const engine = createUpstreamEngine({ baseUrl: `${server.baseUrl}/`, model: 'llama3.2', ...options });
  const events: ChatEngineEvent[] = [];
  for await (const event of engine.generate(engineRequest, { signal: new AbortController().signal, requestId: 'req_42' })) events.push(event);
  return { events, server };
}

const thinking: UpstreamScenario = (_request, response) => {
  response.writeHead(200, sseHeaders);
  response.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { reasoning: 'Hmm.', content: 'Hi' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
};

describe('createUpstreamEngine', () => {
  it('should send an always-streaming OpenAI body with our fields, headers and request id', async () => {
    const { server } = await run(thinking, { apiKey: 'sk-up', headers: { 'x-gateway': 'a' } });
    const [record] = server.requests;
    expect(record!.url).toBe('/v1/chat/completions');
    expect(record!.headers).toMatchObject({ authorization: 'Bearer sk-up', 'x-request-id': 'req_42', 'x-gateway': 'a', accept: 'text/event-stream', 'content-type': 'application/json' });
    expect(record!.body).toEqual({
      model: 'llama3.2',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?', name: 'ada' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: '{"sky":"clear"}', tool_call_id: 'call_1' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.7,
      max_tokens: 4096,
      top_p: 0.9,
      stop: ['END'],
      seed: 7,
      user: 'u-1',
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
  });

  it('should leave tool fields out of a request without tools', async () => {
    const { server } = await run(thinking, {}, { ...request, messages: [{ role: 'user', content: 'Hi' }], tools: [], toolChoice: 'none' });
    expect(Object.keys(server.requests[0]!.body)).not.toContain('tool_choice');
  });

  it.each([
    ['auto', false, false],
    ['auto', true, true],
    ['keep', false, true],
    ['drop', true, false],
  ] as const)('should, with reasoning %s and a model that shows reasoning: %s, yield reasoning: %s', async (mode, shows, yields) => {
    const { events } = await run(thinking, { reasoning: mode }, { ...request, reasoning: shows });
    expect(events.filter((event) => event.type === 'reasoning')).toEqual(yields ? [{ type: 'reasoning', text: 'Hmm.' }] : []);
    expect(events.filter((event) => event.type === 'content')).toEqual([{ type: 'content', text: 'Hi' }]);
  });

  it('should count usage the upstream did not report', async () => {
    const { events } = await run(thinking, {}, { ...request, messages: [{ role: 'user', content: 'Hello' }], tools: [] });
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { promptTokens: 9, completionTokens: 2, reasoningTokens: 1 } });
  });

  it('should answer a finished stream that has no [DONE] and no usage (CRLF line ends), counting the usage', async () => {
    const line = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ finish_reason: finish, index: 0, delta }], id: 'chatcmpl-W', model: 'gpt-3.5-turbo', object: 'chat.completion.chunk' })}\r\n\r\n`;
    const body = `${line({ role: 'assistant', content: 'Hi' })}${line({ content: ' there, friend.' })}${line({}, 'stop')}`;
    const { events } = await run((_request, response) => void response.writeHead(200, sseHeaders).end(body), {}, { ...request, messages: [{ role: 'user', content: 'Hello' }], tools: [] });
    expect(events).toEqual([
      { type: 'content', text: 'Hi' },
      { type: 'content', text: ' there, friend.' },
      // Prompt: 3 + 4 + ceil(5 / 4); completion: the 17 characters counted.
      { type: 'finish', reason: 'stop', usage: { promptTokens: 9, completionTokens: 5, reasoningTokens: 0 } },
    ]);
  });

  it('should accept a whole JSON completion from a runtime that ignores stream: true', async () => {
    const completion = {
      id: 'x',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: '<think>Plan.</think>Done', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'tool_calls' }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    };
    const { events } = await run((_request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion)), {}, { ...request, reasoning: true });
    expect(events).toEqual([
      { type: 'reasoning', text: 'Plan.' },
      { type: 'content', text: 'Done' },
      { type: 'tool-call', index: 0, name: 'f', argumentsDelta: '{}' },
      { type: 'finish', reason: 'tool_calls', usage: { promptTokens: 3, completionTokens: 4, reasoningTokens: 2 } },
    ]);
  });

  it('should keep the reasoning of `{"reasoning_content":"","reasoning":"…"}`', async () => {
    const delta = (fields: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: fields, finish_reason: finish }] })}\n\n`;
    const { events } = await run(
      (_request, response) =>
        void response
          .writeHead(200, sseHeaders)
          .end(`${delta({ reasoning_content: '', reasoning: 'Think' })}${delta({ reasoning_content: '', reasoning: ' twice' })}${delta({ content: 'Hi' }, 'stop')}data: [DONE]\n\n`),
      {},
      { ...request, reasoning: true },
    );
    expect(events.filter((event) => event.type === 'reasoning')).toEqual([
      { type: 'reasoning', text: 'Think' },
      { type: 'reasoning', text: ' twice' },
    ]);
  });

  it('should make two calls of two named tool-call fragments that have neither id nor index', async () => {
    const call = (args: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ function: { name: 'get_time', arguments: args } }] } }] })}\n\n`;
    const { events } = await run(
      (_request, response) =>
        void response.writeHead(200, sseHeaders).end(`${call('{"city":"Tokyo"}')}${call('{"city":"Oslo"}')}${contentChunk('', 'tool_calls')}data: [DONE]\n\n`),
    );
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([
      { type: 'tool-call', index: 0, name: 'get_time', argumentsDelta: '{"city":"Tokyo"}' },
      { type: 'tool-call', index: 1, name: 'get_time', argumentsDelta: '{"city":"Oslo"}' },
    ]);
  });

  it('should fail with the upstream\'s message on an `{"object":"error"}` data line', async () => {
    const failure = `data: ${JSON.stringify({ object: 'error', message: 'The model crashed.', type: 'InternalServerError', param: null, code: 'model_crash' })}\n\n`;
    await expect(run((_request, response) => void response.writeHead(200, sseHeaders).end(`${contentChunk('Hi')}${failure}data: [DONE]\n\n`))).rejects.toMatchObject({
      code: 'upstream_error',
      message: 'The model server failed during the answer: The model crashed.',
    });
  });

  it('should read a spec-only thought trace, whose data is just {"delta": …}', async () => {
    const { events } = await run(
      (_request, response) =>
        void response.writeHead(200, sseHeaders).end(`event: thought_trace\ndata: {"delta":"Hmm."}\n\nevent: message\n${contentChunk('Hi', 'stop')}data: [DONE]\n\n`),
      {},
      { ...request, reasoning: true },
    );
    expect(events.slice(0, 2)).toEqual([
      { type: 'reasoning', text: 'Hmm.' },
      { type: 'content', text: 'Hi' },
    ]);
  });

  it('should let a slow but steady answer run longer than both timeouts', async () => {
    const steady: UpstreamScenario = async (_request, response) => {
      response.writeHead(200, sseHeaders);
      for (let token = 0; token < 8; token++) {
        await pause(80);
        response.write(`: keep-alive\n\n${contentChunk(String(token))}`);
      }
      response.end(`${contentChunk('', 'stop')}data: [DONE]\n\n`);
    };
    const { events } = await run(steady, { firstTokenTimeoutMs: 250, idleTimeoutMs: 250 });
    expect(events.filter((event) => event.type === 'content').map((event) => (event as { text: string }).text).join('')).toBe('01234567');
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('should keep the connection for the next request when the body ends after [DONE]', async () => {
    const lateEnd: UpstreamScenario = async (_request, response) => {
      response.writeHead(200, sseHeaders);
      response.write(`${contentChunk('Hi', 'stop')}data: [DONE]\n\n`);
      await pause(20);
      response.end();
    };
    const server = await startUpstreamServer(lateEnd);
    servers.push(server);
    const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'm' });
    for (let round = 0; round < 3; round++) {
      // The handler aborts the engine's signal right after `finish`: that must not drop the connection.
      const controller = new AbortController();
      for await (const event of engine.generate(request, { signal: controller.signal, requestId: 'r' })) if (event.type === 'finish') break;
      controller.abort();
      await pause(40);
    }
    expect(new Set(server.requests.map((record) => record.remotePort)).size).toBe(1);
  });

  it('should not wait for an upstream that never ends its body after [DONE]', async () => {
    // Proved by the run finishing at all: the upstream's body never ends.
    const { events, server } = await run((_request, response) => void response.writeHead(200, sseHeaders).write(`${contentChunk('Hi', 'stop')}data: [DONE]\n\n`));
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
    await pause(1200);
    expect(server.requests[0]!.socketClosedAt).toBeDefined();
  });

  it('should refuse a body that is not an event stream', async () => {
    await expect(run((_request, response) => void response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'))).rejects.toMatchObject({
      code: 'upstream_error',
      message: "The model server answered with 'text/html', not an event stream.",
    });
  });

  it('should refuse a chunk that is not a chat completion chunk', async () => {
    await expect(run((_request, response) => void response.writeHead(200, sseHeaders).end('data: [1, 2]\n\n'))).rejects.toMatchObject({ code: 'upstream_error' });
  });

  it('should hand over the events of one upstream read together, after one asynchronous step, and the finish after the body ended', async () => {
    const server = await startUpstreamServer((_request, response) => {
      response.writeHead(200, sseHeaders);
      response.end(`${contentChunk('a')}${contentChunk('b')}${contentChunk('c', 'stop')}data: [DONE]\n\n`);
    });
    servers.push(server);
    const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'm' });
    const iterator = engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })[Symbol.asyncIterator]() as AsyncIterator<ChatEngineEvent> & { takeReady(): ChatEngineEvent | undefined };
    const events = [(await iterator.next()).value as ChatEngineEvent];
    for (let event = iterator.takeReady(); event !== undefined; event = iterator.takeReady()) events.push(event);
    expect(events).toEqual([
      { type: 'content', text: 'a' },
      { type: 'content', text: 'b' },
      { type: 'content', text: 'c' },
    ]);
    // The finish comes once the body ended (its connection back in the pool): a step of its own.
    expect((await iterator.next()).value).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(iterator.takeReady()).toBeUndefined();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('should relay the events a read brought before a broken chunk, then fail, and not try another deployment', async () => {
    const breaking: UpstreamScenario = (_request, response) => void response.writeHead(200, sseHeaders).end(`${contentChunk('a')}${contentChunk('b')}data: [1, 2]\n\n`);
    const deployments = [await startUpstreamServer(breaking), await startUpstreamServer(breaking)];
    servers.push(...deployments);
    const engine = createUpstreamEngine({ deployments: deployments.map((server) => ({ baseUrl: server.baseUrl, model: 'm' })), retry: { baseDelayMs: 1 } });
    const events: ChatEngineEvent[] = [];
    const relayed = (async () => {
      for await (const event of engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })) events.push(event);
    })();
    await expect(relayed).rejects.toMatchObject({ code: 'upstream_error' });
    expect(events).toEqual([
      { type: 'content', text: 'a' },
      { type: 'content', text: 'b' },
    ]);
    expect(deployments[0]!.requests.length + deployments[1]!.requests.length).toBe(1);
  });

  it('should answer 503 when the connection cannot be opened in time', async () => {
    // What undici's connector reports when `connectTimeoutMs` runs out (the sandbox has no black-hole address).
    const dispatcher = new Agent({ connect: (_options, callback) => void setTimeout(() => callback(new errors.ConnectTimeoutError(), null), 5) });
    const engine = createUpstreamEngine({ baseUrl: 'http://127.0.0.1:8/v1', model: 'm', dispatcher });
    const iterator = engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'engine_unavailable', status: 503, message: 'The model server is unreachable (UND_ERR_CONNECT_TIMEOUT).' });
    await dispatcher.close();
  });

  it('should decode a compressed event stream, as fetch did', async () => {
    const { events } = await run((_request, response) => {
      response.writeHead(200, { ...sseHeaders, 'content-encoding': 'gzip' });
      response.end(gzipSync(`${contentChunk('zipped', 'stop')}data: [DONE]\n\n`));
    });
    expect(events[0]).toEqual({ type: 'content', text: 'zipped' });
  });

  it('should follow a 307 redirect with the same request, as fetch did', async () => {
    const target = await startUpstreamServer(thinking);
    servers.push(target);
    const { events } = await run((_request, response) => void response.writeHead(307, { location: `${target.baseUrl}/chat/completions` }).end());
    expect(events.filter((event) => event.type === 'content')).toEqual([{ type: 'content', text: 'Hi' }]);
    expect(target.requests[0]!.body).toMatchObject({ model: 'llama3.2', stream: true });
  });

  it('should not send the upstream API key along a redirect to another origin', async () => {
    const target = await startUpstreamServer(thinking);
    servers.push(target);
    // 127.0.0.1 and localhost are different origins.
    const elsewhere = `${target.baseUrl.replace('127.0.0.1', 'localhost')}/chat/completions`;
    const { server } = await run((_request, response) => void response.writeHead(308, { location: elsewhere }).end(), { apiKey: 'sk-secret', headers: { 'x-gateway': 'a' } });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-secret');
    expect(target.requests[0]!.headers.authorization).toBeUndefined();
    expect(target.requests[0]!.headers['x-gateway']).toBe('a');
  });

  it('should report an error event whose data is not JSON as an upstream failure with its text', async () => {
    await expect(run((_request, response) => void response.writeHead(200, sseHeaders).end('event: error\ndata: out of memory\n\n'))).rejects.toMatchObject({
      code: 'upstream_error',
      message: 'The model server failed during the answer: out of memory',
    });
  });

  it('should use the fetch it is given', async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      calls.push(String(input));
      return new Response(`${contentChunk('ok', 'stop')}data: [DONE]\n\n`, { headers: sseHeaders });
    };
    const engine = createUpstreamEngine({ baseUrl: 'http://models.internal/v1', model: 'm', fetch });
    const events: ChatEngineEvent[] = [];
    for await (const event of engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })) events.push(event);
    expect(calls).toEqual(['http://models.internal/v1/chat/completions']);
    expect(events[0]).toEqual({ type: 'content', text: 'ok' });
  });

  it('should throw the abort reason when the signal is already aborted, without calling upstream', async () => {
    const engine = createUpstreamEngine({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm' });
    const reason = new Error('gone');
    const iterator = engine.generate(request, { signal: AbortSignal.abort(reason), requestId: 'r' })[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toBe(reason);
  });

  it('should throw the abort reason, not an upstream error, when aborted mid-stream', async () => {
    const server = await startUpstreamServer((_request, response) => void response.writeHead(200, sseHeaders).write(contentChunk('a')));
    servers.push(server);
    const controller = new AbortController();
    const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'm' });
    const iterator = engine.generate(request, { signal: controller.signal, requestId: 'r' })[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { type: 'content', text: 'a' } });
    const reason = new Error('client left');
    const pending = iterator.next();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  describe('with a context that has onAbort', () => {
    it('should relay a stream and a JSON answer without reading the signal', async () => {
      const server = await startUpstreamServer((incoming, response, record) => {
        if (incoming.headers.accept === 'application/json') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'whole' }, finish_reason: 'stop' }] }));
        } else void thinking(incoming, response, record);
      });
      servers.push(server);
      const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'm' });
      for (const stream of [true, false]) {
        const context = createWatchedEngineContext({ stream });
        const events: ChatEngineEvent[] = [];
        for await (const event of engine.generate(request, context)) events.push(event);
        expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
        expect(events[0]).toEqual({ type: 'content', text: stream ? 'Hi' : 'whole' });
        expect(context.signalReads).toBe(0);
      }
    });

    it('should abort the upstream request through onAbort, ending with the reason', async () => {
      const server = await startUpstreamServer((_request, response) => void response.writeHead(200, sseHeaders).write(contentChunk('a')));
      servers.push(server);
      const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'm' });
      const context = createWatchedEngineContext({ stream: true });
      const iterator = engine.generate(request, context)[Symbol.asyncIterator]();
      expect(await iterator.next()).toEqual({ done: false, value: { type: 'content', text: 'a' } });
      const reason = new Error('client left');
      const pending = iterator.next();
      context.abort(reason);
      await expect(pending).rejects.toBe(reason);
    });
  });
});
