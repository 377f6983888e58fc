import { insecureAcceptAnyApiKey, createModelRegistry } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamEngine } from '../src/index.js';
import { readSpecStream } from '@quantum-chat/conformance';
import { postChat, startFrontServer, type AdapterKind, type FrontServer } from './helpers/start-front-server.js';
import { contentChunk, pause, sseHeaders, startUpstreamServer, type UpstreamScenario, type UpstreamServer } from './helpers/start-upstream-server.js';

const timeoutMs = 300;
const hello = { model: 'quantum-flash', messages: [{ role: 'user', content: 'Hello' }] };

/**
 * A port nothing listens on: 1 (tcpmux) is below the ephemeral range, so no server a test
 * starts on port 0 can be given it. A port freed by a closed server was taken by another
 * test's server in the minutes between this suite's start and its refused-port cases.
 */
const refusedPort = 1;

function json(status: number, body: unknown, headers: Record<string, string> = {}): UpstreamScenario {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
}

/** Two content chunks, then the given ending. */
function partial(ending: (response: Parameters<UpstreamScenario>[1]) => void | Promise<void>): UpstreamScenario {
  return async (_request, response) => {
    response.writeHead(200, sseHeaders);
    response.write(contentChunk('Hel'));
    await pause(5);
    response.write(contentChunk('lo'));
    await pause(5);
    await ending(response);
  };
}

/** Faults before the first token: an HTTP error, never a fake success. */
const beforeStreaming: { name: string; scenario: UpstreamScenario | 'refused'; status: number; code: string; message: RegExp; headers?: Record<string, string> }[] = [
  { name: 'a refused port', scenario: 'refused', status: 503, code: 'engine_unavailable', message: /unreachable \(ECONNREFUSED\)/ },
  {
    name: 'an upstream 400',
    scenario: json(400, { error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }),
    status: 400,
    code: 'invalid_value',
    message: /rejected the request: This model's maximum context length is 8192 tokens\.$/,
  },
  { name: 'an upstream 401', scenario: json(401, { error: { message: 'Incorrect API key provided: sk-abc***' } }), status: 502, code: 'upstream_error', message: /^The model server refused the service's credentials \(HTTP 401\)\.$/ },
  {
    name: 'an upstream 404 (Ollama model not pulled)',
    scenario: json(404, { error: { message: 'model "llama3.2" not found, try pulling it first', type: 'api_error', param: null, code: null } }),
    status: 502,
    code: 'upstream_error',
    message: /HTTP 404\): model "llama3.2" not found/,
  },
  { name: 'an upstream 429 with retry-after', scenario: json(429, { error: 'rate limited' }, { 'retry-after': '7' }), status: 503, code: 'engine_unavailable', message: /HTTP 429\): rate limited/, headers: { 'retry-after': '7', 'retry-after-ms': '7000' } },
  { name: 'an upstream 503 without retry-after', scenario: json(503, { object: 'error', message: 'overloaded' }), status: 503, code: 'engine_unavailable', message: /overloaded/, headers: { 'retry-after': '1', 'retry-after-ms': '1000' } },
  { name: 'an upstream 500', scenario: json(500, { detail: 'Internal Server Error' }), status: 502, code: 'upstream_error', message: /HTTP 500\): Internal Server Error/ },
  {
    name: 'no first token in time',
    scenario: async (_request, response) => {
      response.writeHead(200, sseHeaders);
      response.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] })}\n\n: keep-alive\n\n`);
    },
    status: 504,
    code: 'upstream_timeout',
    message: /no first token within 300 ms/,
  },
  {
    name: 'an error payload as the first event',
    scenario: (_request, response) => {
      response.writeHead(200, sseHeaders);
      response.end(`data: ${JSON.stringify({ error: { message: 'max_tokens is too large', type: 'BadRequestError', code: 400 } })}\n\n`);
    },
    status: 400,
    code: 'invalid_value',
    message: /max_tokens is too large/,
  },
];

/** Faults after the first token: an error frame and no `[DONE]` (or an HTTP error when not streaming). */
const midStream: { name: string; scenario: UpstreamScenario; status: number; code: string; message: RegExp }[] = [
  {
    name: 'an error payload mid-stream',
    scenario: partial((response) => void response.end(`data: ${JSON.stringify({ error: { message: 'CUDA out of memory', type: 'server_error' } })}\n\n`)),
    status: 502,
    code: 'upstream_error',
    message: /during the answer: CUDA out of memory/,
  },
  { name: 'a connection reset mid-stream', scenario: partial((response) => void response.socket?.destroy()), status: 502, code: 'upstream_error', message: /broke during the answer/ },
  { name: 'a stall mid-stream', scenario: partial(() => undefined), status: 504, code: 'upstream_timeout', message: /stalled: nothing for 300 ms/ },
  {
    name: 'a stall kept alive only by comments',
    scenario: partial(async (response) => {
      while (!response.destroyed) {
        response.write(': keep-alive\n\n');
        await pause(50);
      }
    }),
    status: 504,
    code: 'upstream_timeout',
    message: /stalled: nothing for 300 ms/,
  },
  { name: 'an EOF without a finish', scenario: partial((response) => void response.end()), status: 502, code: 'upstream_error', message: /ended the stream without finishing/ },
];

describe.each<AdapterKind>(['fastify', 'express'])('the fault matrix through %s', (kind) => {
  let upstream: UpstreamServer;
  let front: FrontServer;
  let scenario: UpstreamScenario = json(200, {});

  beforeAll(async () => {
    upstream = await startUpstreamServer((request, response, record) => scenario(request, response, record));
    const options = { model: 'm', firstTokenTimeoutMs: timeoutMs, idleTimeoutMs: timeoutMs };
    const engine = createUpstreamEngine({ baseUrl: upstream.baseUrl, ...options });
    const refused = createUpstreamEngine({ baseUrl: `http://127.0.0.1:${refusedPort}/v1`, ...options });
    front = await startFrontServer(kind, { accessControl: insecureAcceptAnyApiKey(), registry: createModelRegistry({ engine, engines: { 'quantum-lite': refused } }) });
  });
  afterAll(async () => {
    await front.close();
    await upstream.close();
  });

  for (const fault of beforeStreaming) {
    for (const stream of [false, true]) {
      it(`should answer ${fault.name} with ${fault.status} ${fault.code} (stream: ${stream})`, async () => {
        if (fault.scenario !== 'refused') scenario = fault.scenario;
        const model = fault.scenario === 'refused' ? 'quantum-lite' : 'quantum-flash';
        const response = await postChat(front.baseUrl, { ...hello, model, stream });
        expect(response.status).toBe(fault.status);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        for (const [name, value] of Object.entries(fault.headers ?? {})) expect(response.headers.get(name)).toBe(value);
        const { error } = (await response.json()) as { error: Record<string, unknown> };
        expect(error).toMatchObject({ type: fault.status < 500 ? 'invalid_request_error' : 'server_error', code: fault.code, param: null });
        expect(error.message).toMatch(fault.message);
      });
    }
  }

  for (const fault of midStream) {
    it(`should end a stream with an error frame and no [DONE] on ${fault.name}`, async () => {
      scenario = fault.scenario;
      const response = await postChat(front.baseUrl, { ...hello, stream: true });
      expect(response.status).toBe(200);
      const summary = readSpecStream(await response.text());
      expect(summary.content).toBe('Hello');
      expect(summary.done).toBe(false);
      expect(summary.finishReason).toBeUndefined();
      expect(summary.error).toMatchObject({ type: 'server_error', code: fault.code, param: null });
      expect(summary.error?.message).toMatch(fault.message);
    });

    it(`should answer ${fault.status} ${fault.code} to a non-streaming request on ${fault.name}`, async () => {
      scenario = fault.scenario;
      const response = await postChat(front.baseUrl, hello);
      expect(response.status).toBe(fault.status);
      const { error } = (await response.json()) as { error: Record<string, unknown> };
      expect(error).toMatchObject({ code: fault.code });
      expect(error.message).toMatch(fault.message);
    });
  }
});
