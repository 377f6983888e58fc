import { readdirSync, readFileSync } from 'node:fs';
import { createModelRegistry } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamEngine } from '../src/index.js';
import { createFixedIds, fixedCreated, fixedNow } from './helpers/fixed-ids.js';
import { readSpecStream } from './helpers/read-spec-stream.js';
import { postChat, startFrontServer, type FrontServer } from './helpers/start-front-server.js';
import { sendTranscript, startUpstreamServer, type UpstreamServer } from './helpers/start-upstream-server.js';

interface ExpectedAnswer {
  reasoning_content?: string;
  content: string | null;
  tool_calls?: { name: string; arguments: string }[];
  finish_reason: string;
  usage: Record<string, unknown>;
}
interface TranscriptCase {
  source: string;
  tools?: boolean;
  expect: Record<string, ExpectedAnswer>;
}

const directory = new URL('./transcripts/', import.meta.url);
const names = readdirSync(directory)
  .filter((file) => file.endsWith('.sse'))
  .map((file) => file.slice(0, -'.sse'.length));
const load = (name: string) => ({
  transcript: readFileSync(new URL(`${name}.sse`, directory), 'utf8'),
  case: JSON.parse(readFileSync(new URL(`${name}.expected.json`, directory), 'utf8')) as TranscriptCase,
});

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather in a place.',
      parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
    },
  },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } } },
];
const pad = (counter: number) => String(counter).padStart(24, '0');

/** The exact non-streaming body decisions §3 prescribes for an expected answer. */
function expectedBody(model: string, answer: ExpectedAnswer): string {
  const message = {
    role: 'assistant',
    ...(answer.reasoning_content !== undefined ? { reasoning_content: answer.reasoning_content } : {}),
    content: answer.content,
    ...(answer.tool_calls
      ? { tool_calls: answer.tool_calls.map((call, index) => ({ id: `call_${pad(index + 1)}`, type: 'function', function: call })) }
      : {}),
  };
  return JSON.stringify({
    id: `chatcmpl-${pad(1)}`,
    object: 'chat.completion',
    created: fixedCreated,
    model,
    choices: [{ index: 0, message, finish_reason: answer.finish_reason, logprobs: null }],
    usage: answer.usage,
  });
}

describe('upstream dialects served through Fastify', () => {
  let upstream: UpstreamServer;
  let front: FrontServer;
  /** The transcript the upstream plays next, and how it cuts it. */
  let playing = { text: '', cutAt: undefined as number[] | undefined };
  /** Ids restart for every request, so each expected body starts at 1. */
  let ids = createFixedIds();

  beforeAll(async () => {
    upstream = await startUpstreamServer((_request, response) => sendTranscript(response, playing.text, playing.cutAt ? { cutAt: playing.cutAt } : {}));
    const engine = createUpstreamEngine({ baseUrl: upstream.baseUrl, model: 'upstream-model' });
    front = await startFrontServer('fastify', { registry: createModelRegistry({ engine }), generateId: (kind) => ids(kind), now: fixedNow });
  });
  afterAll(async () => {
    await front.close();
    await upstream.close();
  });

  it('should have an expected answer for every transcript', () => {
    expect(names.length).toBeGreaterThanOrEqual(13);
    for (const name of names) expect(Object.keys(load(name).case.expect).length, name).toBeGreaterThan(0);
  });

  it('should stream think-tags-split byte for byte as decisions §4 writes it', async () => {
    playing = { text: load('think-tags-split').transcript, cutAt: undefined };
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
        `event: message\ndata: {${head},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":${usage}}\n\n`,
        `event: message\ndata: {${head},"choices":[],"usage":${usage}}\n\n`,
        'data: [DONE]\n\n',
      ].join(''),
    );
  });

  for (const name of names) {
    const { transcript, case: testCase } = load(name);
    for (const [model, answer] of Object.entries(testCase.expect)) {
      const request = { model, messages: [{ role: 'user', content: 'Hello' }], ...(testCase.tools ? { tools } : {}) };

      it(`should answer ${name} as ${model} with the exact decisions §3 body`, async () => {
        playing = { text: transcript, cutAt: undefined };
        ids = createFixedIds();
        const response = await postChat(front.baseUrl, request, { headers: { 'x-request-id': `t-${name}` } });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const body = await response.text();
        expect(body).toBe(expectedBody(model, answer));
      });

      it(`should stream ${name} as ${model} in the decisions §4 shape`, async () => {
        playing = { text: transcript, cutAt: undefined };
        const response = await postChat(front.baseUrl, { ...request, stream: true, stream_options: { include_usage: true } });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
        const summary = readSpecStream(await response.text(), { includeUsage: true });
        expect(summary.error).toBeUndefined();
        expect({
          reasoning_content: summary.reasoning,
          content: summary.content === '' && summary.toolCalls.length > 0 ? null : summary.content,
          tool_calls: summary.toolCalls.map(({ name: callName, arguments: args }) => ({ name: callName, arguments: args })),
          finish_reason: summary.finishReason,
          usage: summary.usage,
        }).toEqual({ reasoning_content: answer.reasoning_content ?? '', tool_calls: [], ...answer });
      });
    }

    it(`should give the same answer for ${name} when its bytes are cut anywhere`, async () => {
      const [model, answer] = Object.entries(testCase.expect)[0]!;
      const size = Buffer.byteLength(transcript);
      // Deterministic cuts every 13 bytes: inside lines, tags and multi-byte characters.
      playing = { text: transcript, cutAt: Array.from({ length: Math.floor(size / 13) }, (_, index) => index * 13 + 5) };
      const request = { model, messages: [{ role: 'user', content: 'Hello' }], ...(testCase.tools ? { tools } : {}), stream: true };
      const summary = readSpecStream(await (await postChat(front.baseUrl, request)).text());
      expect(summary.content === '' && summary.toolCalls.length > 0 ? null : summary.content).toBe(answer.content);
      expect(summary.reasoning).toBe(answer.reasoning_content ?? '');
      expect(summary.toolCalls.map(({ name: callName, arguments: args }) => ({ name: callName, arguments: args }))).toEqual(answer.tool_calls ?? []);
    });
  }
});
