import { createModelRegistry, insecureAcceptAnyApiKey, type ChatEngineEvent, type ChatEngineRequest } from '@quantum-chat/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamEngine, type UpstreamEngineOptions } from '../src/index.js';
import { postChat, startFrontServer } from './helpers/start-front-server.js';
import { contentChunk, pause, sseHeaders, startUpstreamServer, type UpstreamScenario, type UpstreamServer } from './helpers/start-upstream-server.js';

const request: ChatEngineRequest = {
  model: 'quantum-flash',
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  tools: [{ type: 'function', function: { name: 'get_weather', description: null, parameters: { type: 'object' }, strict: null } }],
  toolChoice: 'auto',
  parallelToolCalls: false,
  temperature: 0.7,
  maxTokens: 256,
  reasoning: false,
};

const servers: UpstreamServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(scenario: UpstreamScenario): Promise<UpstreamServer> {
  const server = await startUpstreamServer(scenario);
  servers.push(server);
  return server;
}

async function collect(options: UpstreamEngineOptions, stream: boolean | undefined): Promise<ChatEngineEvent[]> {
  const engine = createUpstreamEngine(options);
  const events: ChatEngineEvent[] = [];
  const context = { signal: new AbortController().signal, requestId: 'req_json', ...(stream === undefined ? {} : { stream }) };
  for await (const event of engine.generate(request, context)) events.push(event);
  return events;
}

/** Answers as a runtime does: JSON when asked for it, a stream otherwise. */
const honest: UpstreamScenario = (_request, response, record) => {
  if (record.body.stream === false) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'chatcmpl-up',
        object: 'chat.completion',
        created: 1,
        model: 'up',
        system_fingerprint: 'fp_up',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Let me look.', tool_calls: [{ id: 'call_up', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
      }),
    );
    return;
  }
  response.writeHead(200, sseHeaders);
  response.end(`${contentChunk('Streamed.', 'stop')}data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 } })}\n\ndata: [DONE]\n\n`);
};

describe('an upstream engine for a client that does not stream', () => {
  it('should ask the upstream for one JSON completion, and relay its answer, tool call, finish reason and usage', async () => {
    const server = await start(honest);
    const events = await collect({ baseUrl: server.baseUrl, model: 'up' }, false);
    const [record] = server.requests;
    expect(record!.body).toMatchObject({ stream: false, max_tokens: 256, tools: [{ type: 'function', function: { name: 'get_weather' } }] });
    expect(record!.body).not.toHaveProperty('stream_options');
    expect(record!.headers.accept).toBe('application/json');
    expect(events).toEqual([
      { type: 'content', text: 'Let me look.' },
      { type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '{"city":"Paris"}' },
      { type: 'finish', reason: 'tool_calls', usage: { promptTokens: 12, completionTokens: 9, reasoningTokens: 0 }, systemFingerprint: 'fp_up' },
    ]);
  });

  it('should keep streaming for a streaming client, and when the engine is not told', async () => {
    const server = await start(honest);
    for (const stream of [true, undefined]) {
      const events = await collect({ baseUrl: server.baseUrl, model: 'up' }, stream);
      expect(events[0]).toEqual({ type: 'content', text: 'Streamed.' });
    }
    expect(server.requests.map((record) => [record.body.stream, record.body.stream_options, record.headers.accept])).toEqual([
      [true, { include_usage: true }, 'text/event-stream'],
      [true, { include_usage: true }, 'text/event-stream'],
    ]);
  });

  it('should read a stream from an upstream that ignores `stream: false`', async () => {
    const server = await start((_request, response) => {
      response.writeHead(200, sseHeaders);
      response.end(`${contentChunk('Anyway.', 'stop')}data: [DONE]\n\n`);
    });
    const events = await collect({ baseUrl: server.baseUrl, model: 'up' }, false);
    expect(events[0]).toEqual({ type: 'content', text: 'Anyway.' });
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('should retry a 5xx on another deployment, asking it for JSON too', async () => {
    const failing = await start((_request, response) => void response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}'));
    const healthy = await start(honest);
    const events = await collect({ deployments: [failing, healthy].map((server) => ({ baseUrl: server.baseUrl, model: 'up' })), retry: { maxAttempts: 2, baseDelayMs: 1 } }, false);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
    expect([...failing.requests, ...healthy.requests].map((record) => record.body.stream)).toEqual([false, false]);
  });

  it('should time the whole answer with `answerTimeoutMs`, not the first-token timeout, and retry it elsewhere', async () => {
    // Slower than the first-token timeout, within the answer timeout: answered.
    const slow = await start(async (_request, response, record) => {
      await pause(60);
      await honest(_request, response, record);
    });
    const answered = await collect({ baseUrl: slow.baseUrl, model: 'up', firstTokenTimeoutMs: 20, answerTimeoutMs: 5_000 }, false);
    expect(answered.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });

    // Past the answer timeout: a timeout of the deployment's, retried on the next one.
    const stalled = await start(() => undefined);
    const healthy = await start(honest);
    const retried = await collect(
      { deployments: [stalled, healthy].map((server) => ({ baseUrl: server.baseUrl, model: 'up' })), answerTimeoutMs: 50, retry: { maxAttempts: 2, baseDelayMs: 1 } },
      false,
    );
    expect(retried.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
    expect(stalled.requests).toHaveLength(1);

    await expect(collect({ baseUrl: stalled.baseUrl, model: 'up', answerTimeoutMs: 50 }, false)).rejects.toMatchObject({
      code: 'upstream_timeout',
      message: 'The model server gave no whole answer within 50 ms.',
    });
  });
});

describe('through a handler over HTTP', () => {
  it('should ask the upstream for JSON for a client that does not stream, and for a stream for one that does', async () => {
    const upstream = await start(honest);
    const front = await startFrontServer('fastify', { accessControl: insecureAcceptAnyApiKey(), registry: createModelRegistry({ engine: createUpstreamEngine({ baseUrl: upstream.baseUrl, model: 'up' }) }) });
    try {
      const whole = await postChat(front.baseUrl, { model: 'quantum-flash', messages: [{ role: 'user', content: 'Weather?' }], tools: request.tools });
      expect(whole.status).toBe(200);
      const body = (await whole.json()) as { choices: { message: { content: string; tool_calls: unknown[] }; finish_reason: string }[]; usage: Record<string, number> };
      expect(body.choices[0]).toMatchObject({ message: { content: 'Let me look.', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, finish_reason: 'tool_calls' });
      expect(body.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 });

      const streamed = await postChat(front.baseUrl, { model: 'quantum-flash', messages: [{ role: 'user', content: 'Weather?' }], stream: true });
      expect(await streamed.text()).toContain('Streamed.');
      expect(upstream.requests.map((record) => record.body.stream)).toEqual([false, true]);
    } finally {
      await front.close();
    }
  });
});
