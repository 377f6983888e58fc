import {
  chatCompletionChunkSchema,
  chatCompletionSchema,
  errorEnvelopeSchema,
  modelListSchema,
  thoughtTraceChunkSchema,
} from '@quantum-chat/core/schemas';
import { generateApiKey } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLiveKey } from './create-live-key.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { decodeSse } from './sse.js';

const models = ['quantum-lite', 'quantum-flash', 'quantum-reasoner', 'quantum-pro'] as const;
/** The test key the server printed when it seeded its empty store (organisation `default`, elite plan). */
let testKey: string;
const question = { messages: [{ role: 'user', content: 'What is 12 * 7? Answer briefly.' }] };

let server: ServerProcess;

beforeAll(async () => {
  server = await startServerProcess();
  if (server.firstStartKey === undefined) throw new Error(`The server printed no first-start key:\n${server.stdout()}`);
  testKey = server.firstStartKey;
}, 45_000);

afterAll(async () => {
  await server?.dispose();
});

/** `apiKey: null` sends no Authorization header. */
async function chat(prefix: string, body: Record<string, unknown>, apiKey: string | null = testKey): Promise<Response> {
  return fetch(`${server.origin}${prefix}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey !== null ? { authorization: `Bearer ${apiKey}` } : {}) },
    body: JSON.stringify(body),
  });
}

/** Checks a streamed body in the spec's format and returns its reasoning and content. */
function readQuantumStream(body: string, model: string): { reasoning: string; content: string } {
  expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
  const events = decodeSse(body);
  expect(events.at(-1)).toMatchObject({ event: undefined, data: '[DONE]' });
  const frames = events.slice(0, -1);
  expect(frames.every((frame) => frame.event === 'thought_trace' || frame.event === 'message')).toBe(true);
  const firstMessage = frames.findIndex((frame) => frame.event === 'message');
  const traces = frames.filter((frame) => frame.event === 'thought_trace');
  if (model === 'quantum-reasoner') {
    expect(firstMessage).toBeGreaterThan(0);
    // Every thought trace comes before the first message event (spec §6).
    expect(frames.slice(0, firstMessage).every((frame) => frame.event === 'thought_trace')).toBe(true);
    expect(frames.slice(firstMessage).every((frame) => frame.event === 'message')).toBe(true);
  } else {
    expect(traces).toHaveLength(0);
  }
  let reasoning = '';
  let content = '';
  let id: string | undefined;
  frames.forEach((frame, index) => {
    const chunk = frame.event === 'thought_trace' ? thoughtTraceChunkSchema.parse(JSON.parse(frame.data)) : chatCompletionChunkSchema.parse(JSON.parse(frame.data));
    expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model });
    expect(chunk.id).toMatch(/^chatcmpl-[0-9A-Za-z]{24,}$/);
    id ??= chunk.id;
    expect(chunk.id).toBe(id);
    if (index === 0) expect(chunk.choices[0]?.delta?.role).toBe('assistant');
    if ('delta' in chunk && typeof chunk.delta === 'string') {
      expect(chunk.choices[0]?.delta?.reasoning_content).toBe(chunk.delta);
      reasoning += chunk.delta;
    }
    content += chunk.choices[0]?.delta?.content ?? '';
  });
  const last = chatCompletionChunkSchema.parse(JSON.parse(frames.at(-1)!.data));
  expect(last.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
  expect(last.usage?.total_tokens).toBe((last.usage?.prompt_tokens ?? 0) + (last.usage?.completion_tokens ?? 0));
  return { reasoning, content };
}

describe('quantum-chat serve (a real process over HTTP)', () => {
  it('should answer GET /healthz with status ok and a request id', async () => {
    const response = await fetch(`${server.origin}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
  });

  it('should list the four models in spec order on /v1 and /compat/v1', async () => {
    for (const prefix of ['/v1', '/compat/v1']) {
      const response = await fetch(`${server.origin}${prefix}/models`);
      expect(response.status).toBe(200);
      const list = modelListSchema.parse(await response.json());
      expect(list.data.map((model) => model.id)).toEqual([...models]);
      expect(list.data.map((model) => model.requires_plan)).toEqual([null, null, null, 'elite']);
    }
  });

  it('should answer 401 missing_api_key in the envelope without a key', async () => {
    const response = await chat('/v1', { model: 'quantum-lite', ...question }, null);
    expect(response.status).toBe(401);
    const envelope = errorEnvelopeSchema.parse(await response.json());
    expect(envelope.error).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' });
  });

  it('should answer 401 invalid_api_key for a well-formed key the store does not know', async () => {
    const response = await chat('/v1', { model: 'quantum-lite', ...question }, generateApiKey('test'));
    expect(response.status).toBe(401);
    expect(errorEnvelopeSchema.parse(await response.json()).error.code).toBe('invalid_api_key');
  });

  it('should answer unknown paths with a 404 unknown_url envelope, inside and outside /v1', async () => {
    for (const path of ['/nope', '/v1/nope']) {
      const response = await fetch(`${server.origin}${path}`);
      expect(response.status).toBe(404);
      expect(errorEnvelopeSchema.parse(await response.json()).error.code).toBe('unknown_url');
    }
  });

  it('should echo a well-formed x-request-id', async () => {
    const response = await fetch(`${server.origin}/v1/models`, { headers: { 'x-request-id': 'trace-123' } });
    expect(response.headers.get('x-request-id')).toBe('trace-123');
  });

  for (const model of models) {
    it(`should answer ${model} with a spec-exact completion, and stream the same answer`, async () => {
      const response = await chat('/v1', { model, ...question });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await response.text();
      const completion = chatCompletionSchema.parse(JSON.parse(text));
      expect(completion).toMatchObject({ object: 'chat.completion', model, choices: [{ index: 0, finish_reason: 'stop' }] });
      const message = completion.choices[0]!.message;
      expect(message.content).toEqual(expect.any(String));
      expect(completion.usage.total_tokens).toBe(completion.usage.prompt_tokens + completion.usage.completion_tokens);
      if (model === 'quantum-reasoner') {
        expect(message.reasoning_content).toEqual(expect.any(String));
        expect(text.indexOf('"reasoning_content"')).toBeLessThan(text.indexOf('"content"'));
      } else {
        expect(text).not.toContain('reasoning_content');
      }

      const streamed = await chat('/v1', { model, ...question, stream: true });
      expect(streamed.status).toBe(200);
      expect(streamed.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const { reasoning, content } = readQuantumStream(await streamed.text(), model);
      // The reference engine is deterministic: streamed or not, the same answer.
      expect(content).toBe(message.content);
      if (model === 'quantum-reasoner') expect(reasoning).toBe(message.reasoning_content);
    });
  }

  for (const model of models) {
    it(`should stream ${model} on /compat/v1 in the OpenAI format, without event lines`, async () => {
      const response = await chat('/compat/v1', { model, ...question, stream: true });
      expect(response.status).toBe(200);
      const body = await response.text();
      expect(body).not.toMatch(/^event:/m);
      expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
      const events = decodeSse(body);
      const chunks = events.slice(0, -1).map((event) => chatCompletionChunkSchema.parse(JSON.parse(event.data)));
      expect(chunks.every((chunk) => !('delta' in chunk))).toBe(true);
      const reasoning = chunks.map((chunk) => chunk.choices[0]?.delta?.reasoning_content ?? '').join('');
      if (model === 'quantum-reasoner') expect(reasoning).not.toBe('');
      else expect(reasoning).toBe('');
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    });
  }

  it('should answer a live key made with `quantum-chat keys create`', async () => {
    const response = await chat('/v1', { model: 'quantum-lite', ...question }, await createLiveKey(server.dataDir));
    expect(response.status).toBe(200);
    chatCompletionSchema.parse(await response.json());
  });

  it('should log settled requests with the key shown only as prefix and last 4', async () => {
    const response = await chat('/v1', { model: 'quantum-flash', ...question });
    const requestId = response.headers.get('x-request-id')!;
    await response.text();
    await server.waitForStdout(new RegExp(`"reqId":"${requestId}"[^\\n]*"msg":"chat completion settled"`));
    const line = server
      .stdout()
      .split('\n')
      .find((entry) => entry.includes(requestId) && entry.includes('chat completion settled'))!;
    const record = JSON.parse(line) as Record<string, unknown>;
    expect(record).toMatchObject({ model: 'quantum-flash', status: 200, interrupted: false, key: `qc_test_…${testKey.slice(-4)}`, keyKind: 'test' });
    expect(record.promptTokens).toEqual(expect.any(Number));
    expect(record.completionTokens).toEqual(expect.any(Number));
    // The key appears once, in the first-start message on stderr, and never on stdout (the log stream).
    const logLines = server.stdout().split('\n').filter((entry) => entry.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    expect(server.stdout()).not.toContain(testKey);
    expect(server.stderr().split(testKey)).toHaveLength(2);
  });
});
