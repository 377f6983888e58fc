import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APIConnectionError, createChatClient, InternalServerError, RateLimitError, type ChatClientOptions } from '../src/index.js';

type Responder = (request: IncomingMessage, response: ServerResponse) => void;

/** What the server does for each attempt, in order; the last one repeats. */
let responders: Responder[] = [];
let attempts = 0;
let connections = 0;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    const responder = responders[Math.min(attempts, responders.length - 1)]!;
    attempts++;
    responder(request, response);
  });
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});
beforeEach(() => {
  attempts = 0;
  responders = [];
});

const completion = {
  id: 'chatcmpl-000000000000000000000000',
  object: 'chat.completion',
  created: 0,
  model: 'quantum-lite',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Responder => (_request, response) => {
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${attempts}`, ...headers });
  response.end(JSON.stringify(body));
};
const errorBody = (type: string, code: string) => ({ error: { message: `${code} happened`, type, param: null, code } });
const frame = (data: unknown) => `event: message\ndata: ${JSON.stringify(data)}\n\n`;
const chunk = (content: string) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });

/** A client whose waits are recorded instead of slept. */
function recordingClient(options: Partial<ChatClientOptions> = {}) {
  const waits: number[] = [];
  const client = createChatClient({ baseUrl, apiKey: 'k', sleep: async (milliseconds) => void waits.push(milliseconds), ...options });
  return { client, waits };
}
const request = { model: 'quantum-lite', messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('retries', () => {
  it('should retry a 429 after the retry-after-ms the server asked for', async () => {
    responders = [json(429, errorBody('rate_limit_error', 'rate_limit_exceeded'), { 'retry-after-ms': '120', 'retry-after': '1' }), json(200, completion)];
    const { client, waits } = recordingClient();
    expect((await client.chat.completions.create(request)).choices[0]?.message.content).toBe('ok');
    expect(attempts).toBe(2);
    expect(waits).toEqual([120]);
  });

  it('should honour retry-after in seconds', async () => {
    responders = [json(429, errorBody('rate_limit_error', 'rate_limit_exceeded'), { 'retry-after': '2' }), json(200, completion)];
    const { client, waits } = recordingClient();
    await client.chat.completions.create(request);
    expect(waits).toEqual([2000]);
  });

  it('should not retry insufficient_quota sent with x-should-retry: false', async () => {
    responders = [json(429, errorBody('insufficient_quota', 'insufficient_quota'), { 'x-should-retry': 'false', 'retry-after': '1' }), json(200, completion)];
    const { client, waits } = recordingClient();
    const failure = await client.chat.completions.create(request).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect(failure).toMatchObject({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota', requestId: 'req_1' });
    expect(attempts).toBe(1);
    expect(waits).toEqual([]);
  });

  it('should retry a 503 with exponential backoff, then succeed', async () => {
    responders = [json(503, errorBody('server_error', 'engine_unavailable')), json(200, completion)];
    const { client, waits } = recordingClient();
    await client.chat.completions.create(request);
    expect(attempts).toBe(2);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(375);
    expect(waits[0]).toBeLessThanOrEqual(500);
  });

  it('should give up after maxRetries and throw the last error', async () => {
    responders = [json(503, errorBody('server_error', 'engine_unavailable'))];
    const { client, waits } = recordingClient({ maxRetries: 2 });
    const failure = await client.chat.completions.create(request).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InternalServerError);
    expect(failure).toMatchObject({ status: 503, code: 'engine_unavailable', requestId: 'req_3' });
    expect(attempts).toBe(3);
    expect(waits).toHaveLength(2);
    expect(waits[1]! > waits[0]!).toBe(true);
  });

  it('should not retry a 400', async () => {
    responders = [json(400, errorBody('invalid_request_error', 'invalid_value')), json(200, completion)];
    const { client } = recordingClient();
    await expect(client.chat.completions.create(request)).rejects.toMatchObject({ status: 400 });
    expect(attempts).toBe(1);
  });

  it('should retry a connection dropped before any response', async () => {
    responders = [(_request, response) => response.socket?.destroy(), json(200, completion)];
    const { client, waits } = recordingClient();
    await client.chat.completions.create(request);
    expect(attempts).toBe(2);
    expect(waits).toHaveLength(1);
  });

  it('should retry a stream request refused before its first byte', async () => {
    responders = [
      json(429, errorBody('rate_limit_error', 'rate_limit_exceeded'), { 'retry-after-ms': '10' }),
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(frame(chunk('hello')) + 'data: [DONE]\n\n');
      },
    ];
    const { client, waits } = recordingClient();
    expect((await client.chat.completions.stream(request).collect()).content).toBe('hello');
    expect(attempts).toBe(2);
    expect(waits).toEqual([10]);
  });

  it('should never retry once a stream has started: a dropped connection throws after one attempt', async () => {
    responders = [
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(frame(chunk('one ')));
        response.write(frame(chunk('two')), () => setTimeout(() => response.socket?.destroy(), 20));
      },
    ];
    const { client, waits } = recordingClient();
    const stream = client.chat.completions.stream(request);
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const event of stream) if (event.type === 'content') seen.push(event.text);
    })().catch((error: unknown) => error);
    expect(seen).toEqual(['one ', 'two']);
    expect(APIConnectionError.isInstance(failure)).toBe(true);
    expect(attempts).toBe(1);
    expect(waits).toEqual([]);
  });

  it('should throw when a stream ends cleanly but without [DONE], after one attempt', async () => {
    responders = [
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(frame(chunk('partial')));
      },
    ];
    const { client } = recordingClient();
    await expect(client.chat.completions.stream(request).collect()).rejects.toThrow(/\[DONE\]/);
    expect(attempts).toBe(1);
  });

  it('should read a finished stream to its end, so that the next request reuses the connection', async () => {
    responders = [
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        // The end of the body comes a little after [DONE], in its own packet.
        response.write(frame(chunk('x')) + 'data: [DONE]\n\n', () => setTimeout(() => response.end(), 30));
      },
    ];
    const { client } = recordingClient();
    await client.chat.completions.stream(request).collect();
    const connectionsAfterFirst = connections;
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.chat.completions.stream(request).collect();
    expect(attempts).toBe(2);
    expect(connections).toBe(connectionsAfterFirst);
  });
});
