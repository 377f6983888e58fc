import { insecureAcceptAnyApiKey, createModelRegistry } from '@quantum-chat/core';
import { loadClientFixtures } from '@quantum-chat/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamEngine } from '../src/index.js';
import { createFixedIds, fixedCreated, fixedNow } from './helpers/fixed-ids.js';
import { postChat, startFrontServer, type FrontServer } from './helpers/start-front-server.js';
import { sendTranscript, startUpstreamServer, type UpstreamServer } from './helpers/start-upstream-server.js';

// The dialect fixtures of the conformance package relayed end to end: an upstream plays a
// fixture, the engine reads it, our handler behind Fastify answers in our own wire format.
// (Every fixture is read by the engine itself in dialect-conformance.test.ts.)

const fixtures = new Map(loadClientFixtures().map((fixture) => [fixture.id, new TextDecoder().decode(fixture.bytes)]));
const fixture = (id: string) => fixtures.get(id) ?? expect.fail(`no fixture ${id}`);
const pad = (counter: number) => String(counter).padStart(24, '0');

describe('dialects relayed through Fastify', () => {
  let upstream: UpstreamServer;
  let front: FrontServer;
  /** The fixture the upstream plays next. */
  let playing = '';
  /** Ids restart for every request, so each expected body starts at 1. */
  let ids = createFixedIds();

  beforeAll(async () => {
    upstream = await startUpstreamServer((_request, response) => sendTranscript(response, playing));
    const engine = createUpstreamEngine({ baseUrl: upstream.baseUrl, model: 'upstream-model' });
    front = await startFrontServer('fastify', { accessControl: insecureAcceptAnyApiKey(), registry: createModelRegistry({ engine }), generateId: (kind) => ids(kind), now: fixedNow });
  });
  afterAll(async () => {
    await front.close();
    await upstream.close();
  });

  it('should stream <think> tags cut across chunks byte for byte as decisions §4 writes it', async () => {
    playing = fixture('dialects/think-tags-split');
    ids = createFixedIds();
    const response = await postChat(front.baseUrl, { model: 'quantum-reasoner', messages: [{ role: 'user', content: 'Hello' }], stream: true, stream_options: { include_usage: true } });
    const head = `"id":"chatcmpl-${pad(1)}","object":"chat.completion.chunk","created":1750000000,"model":"quantum-reasoner"`;
    const usage = '{"prompt_tokens":14,"completion_tokens":8,"total_tokens":22,"completion_tokens_details":{"reasoning_tokens":3}}';
    expect(await response.text()).toBe(
      [
        `event: thought_trace\ndata: {"delta":"Short",${head},"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Short"},"finish_reason":null}]}\n\n`,
        `event: thought_trace\ndata: {"delta":" plan",${head},"choices":[{"index":0,"delta":{"reasoning_content":" plan"},"finish_reason":null}]}\n\n`,
        `event: thought_trace\ndata: {"delta":".",${head},"choices":[{"index":0,"delta":{"reasoning_content":"."},"finish_reason":null}]}\n\n`,
        `event: message\ndata: {${head},"choices":[{"index":0,"delta":{"content":"Done"},"finish_reason":null}]}\n\n`,
        `event: message\ndata: {${head},"choices":[{"index":0,"delta":{"content":"."},"finish_reason":null}]}\n\n`,
        // With include_usage, only the choices: [] chunk carries usage (decisions §4.3). The
        // upstream's fingerprint is passed on from the finish chunk (decisions §3).
        `event: message\ndata: {${head},"system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
        `event: message\ndata: {${head},"system_fingerprint":"fp_ollama","choices":[],"usage":${usage}}\n\n`,
        'data: [DONE]\n\n',
      ].join(''),
    );
  });

  it('should answer index-less tool calls with the exact decisions §3 body: our ids, content null, finish tool_calls', async () => {
    playing = fixture('dialects/tool-calls-without-index');
    ids = createFixedIds();
    const tools = ['get_weather', 'get_time'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));
    const response = await postChat(front.baseUrl, { model: 'quantum-flash', messages: [{ role: 'user', content: 'Hello' }], tools });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      JSON.stringify({
        id: `chatcmpl-${pad(1)}`,
        object: 'chat.completion',
        created: fixedCreated,
        model: 'quantum-flash',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: `call_${pad(1)}`, type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris, France"}' } },
                { id: `call_${pad(2)}`, type: 'function', function: { name: 'get_time', arguments: '{"zone":"Europe/Paris"}' } },
              ],
              refusal: null,
            },
            finish_reason: 'tool_calls',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 80, completion_tokens: 31, total_tokens: 111, completion_tokens_details: { reasoning_tokens: 0 } },
        system_fingerprint: 'fp_eb9dce56a8',
      }),
    );
  });
});
