import type { ChatEngineEvent, ChatEngineRequest, EngineUsage } from '@quantum-chat/core';
import { createModelRegistry, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamEngine, type UpstreamEngineOptions, type UsageReplacement } from '../src/index.js';
import { startResponsesUpstream, type ResponsesAnswer } from './helpers/responses-upstream.js';
import { apiKey, postChat, startFrontServer } from './helpers/start-front-server.js';
import type { UpstreamRequestRecord, UpstreamServer } from './helpers/start-upstream-server.js';

const request: ChatEngineRequest = {
  model: 'quantum-flash',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather?', name: 'ada' },
    { role: 'assistant', content: 'Let me look.', reasoning: 'I should call the tool.', toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', content: '{"sky":"clear"}', toolCallId: 'call_1' },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather', parameters: { type: 'object' }, strict: null } }],
  toolChoice: { type: 'function', function: { name: 'get_weather' } },
  parallelToolCalls: false,
  temperature: 0.3,
  maxTokens: 4096,
  topP: 0.9,
  user: 'u-1',
  responseFormat: { type: 'json_schema', json_schema: { name: 'weather', schema: { type: 'object' }, strict: true } },
  reasoningEffort: 'low',
  reasoning: true,
};
const plain: ChatEngineRequest = { model: 'quantum-flash', messages: [{ role: 'user', content: 'Hi' }], tools: [], toolChoice: 'none', parallelToolCalls: true, temperature: 0.7, maxTokens: 4096, reasoning: false };

const usage: EngineUsage = { promptTokens: 40, completionTokens: 6, reasoningTokens: 2, cachedPromptTokens: 32 };
const finish = (reason: 'stop' | 'length' | 'tool_calls', used: EngineUsage = usage): ChatEngineEvent => ({ type: 'finish', reason, usage: used });

const servers: UpstreamServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function responsesUpstream(reply: (record: UpstreamRequestRecord) => ResponsesAnswer): Promise<UpstreamServer> {
  const server = await startResponsesUpstream(reply);
  servers.push(server);
  return server;
}

/** Every event the engine yields for `engineRequest`, or the error it threw after them. */
async function generate(options: UpstreamEngineOptions, engineRequest = plain) {
  const engine = createUpstreamEngine({ firstTokenTimeoutMs: 5000, ...options });
  const events: ChatEngineEvent[] = [];
  let error: unknown;
  try {
    for await (const event of engine.generate(engineRequest, { signal: AbortSignal.timeout(60_000), requestId: 'req_r' })) events.push(event);
  } catch (caught) {
    error = caught;
  }
  return { events, error };
}

async function against(reply: ResponsesAnswer, engineRequest = plain, options: Partial<UpstreamEngineOptions> = {}) {
  const server = await responsesUpstream(() => reply);
  const outcome = await generate({ baseUrl: server.baseUrl, model: 'Qwen/Qwen3-8B', api: 'responses', ...options }, engineRequest);
  return { ...outcome, server };
}

const text = (events: ChatEngineEvent[], type: 'content' | 'reasoning') => events.map((event) => (event.type === type ? event.text : '')).join('');
const argumentsOf = (events: ChatEngineEvent[]) => events.map((event) => (event.type === 'tool-call' ? event.argumentsDelta : '')).join('');
const lastFinish = (events: ChatEngineEvent[]) => events.at(-1) as Extract<ChatEngineEvent, { type: 'finish' }> | undefined;

describe("an upstream deployment with api: 'responses'", () => {
  it('should send the request to /v1/responses as a Responses request our own validator takes', async () => {
    const { server, error } = await against({ kind: 'stream', events: [{ type: 'content', text: '{}' }, finish('stop')] }, request, { apiKey: 'sk-up' });
    expect(error).toBeUndefined();
    const [record] = server.requests;
    expect(record!.url).toBe('/v1/responses');
    expect(record!.headers).toMatchObject({ authorization: 'Bearer sk-up', 'x-request-id': 'req_r', accept: 'text/event-stream' });
    expect(record!.body).toEqual({
      model: 'Qwen/Qwen3-8B',
      input: [
        { type: 'message', role: 'system', content: 'Be brief.' },
        { type: 'message', role: 'user', content: 'Weather?' },
        { type: 'message', role: 'assistant', content: 'Let me look.' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"sky":"clear"}' },
      ],
      stream: true,
      store: false,
      temperature: 0.3,
      max_output_tokens: 4096,
      top_p: 0.9,
      user: 'u-1',
      tools: [{ type: 'function', name: 'get_weather', description: 'The weather', parameters: { type: 'object' } }],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'weather', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'low' },
    });
  });

  it('should relay text, and the usage of the final response with its cached and reasoning tokens', async () => {
    const { events, error } = await against({ kind: 'stream', events: [{ type: 'content', text: 'Hello' }, { type: 'content', text: ', world' }, finish('stop')] });
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'content', text: 'Hello' },
      { type: 'content', text: ', world' },
      { type: 'finish', reason: 'stop', usage: { promptTokens: 40, completionTokens: 6, reasoningTokens: 2, cachedPromptTokens: 32 } },
    ]);
  });

  it('should relay reasoning from the summary deltas before the text, and hide it for a model that does not show it', async () => {
    const script = [{ type: 'reasoning', text: 'Think' } as const, { type: 'reasoning', text: 'ing.' } as const, { type: 'content', text: 'Done.' } as const, finish('stop')];
    const shown = await against({ kind: 'stream', events: script }, { ...plain, reasoning: true });
    expect(shown.events.slice(0, 3)).toEqual([{ type: 'reasoning', text: 'Think' }, { type: 'reasoning', text: 'ing.' }, { type: 'content', text: 'Done.' }]);
    const hidden = await against({ kind: 'stream', events: script }, plain);
    expect(hidden.events.map((event) => event.type)).toEqual(['content', 'finish']);
    expect(lastFinish(hidden.events)?.usage.reasoningTokens).toBe(2);
  });

  it('should relay two function calls, names first and arguments in deltas, and finish with tool_calls', async () => {
    const { events, error } = await against({
      kind: 'stream',
      events: [
        { type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '{"city":' },
        { type: 'tool-call', index: 0, argumentsDelta: '"Oslo"}' },
        { type: 'tool-call', index: 1, name: 'get_time', argumentsDelta: '' },
        { type: 'tool-call', index: 1, argumentsDelta: '{"zone":"CET"}' },
        finish('tool_calls', { promptTokens: 40, completionTokens: 20, reasoningTokens: 0 }),
      ],
    });
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '' },
      { type: 'tool-call', index: 0, argumentsDelta: '{"city":' },
      { type: 'tool-call', index: 0, argumentsDelta: '"Oslo"}' },
      { type: 'tool-call', index: 1, name: 'get_time', argumentsDelta: '' },
      { type: 'tool-call', index: 1, argumentsDelta: '{"zone":"CET"}' },
      { type: 'finish', reason: 'tool_calls', usage: { promptTokens: 40, completionTokens: 20, reasoningTokens: 0, cachedPromptTokens: 0 } },
    ]);
  });

  it('should finish with length when the runtime stopped at max_output_tokens (response.incomplete)', async () => {
    const { events } = await against({ kind: 'stream', events: [{ type: 'content', text: 'Once upon a' }, finish('length')] });
    expect(lastFinish(events)).toMatchObject({ reason: 'length' });
  });

  it('should read a whole JSON response from a runtime that ignored stream: true', async () => {
    const { events, error } = await against(
      { kind: 'json', events: [{ type: 'reasoning', text: 'Hm.' }, { type: 'content', text: 'Hi there' }, { type: 'tool-call', index: 0, name: 'f', argumentsDelta: '{}' }, finish('tool_calls')] },
      { ...plain, reasoning: true },
    );
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'reasoning', text: 'Hm.' },
      { type: 'content', text: 'Hi there' },
      { type: 'tool-call', index: 0, name: 'f', argumentsDelta: '{}' },
      { type: 'finish', reason: 'tool_calls', usage: { promptTokens: 40, completionTokens: 6, reasoningTokens: 2, cachedPromptTokens: 32 } },
    ]);
  });

  it('should make a failure after the first token (error + response.failed) an upstream fault, after the text already relayed', async () => {
    const { events, error } = await against({ kind: 'stream', events: [{ type: 'content', text: 'Part' }], failWith: { code: 'server_error', message: 'GPU fell over', param: null } });
    expect(text(events, 'content')).toBe('Part');
    expect(error).toMatchObject({ code: 'upstream_error', status: 502, message: expect.stringContaining('GPU fell over') as string });
  });

  it('should retry on another deployment a failure before the first token, as for chat: a 503 and a rate-limit error event', async () => {
    const overloaded = await responsesUpstream(() => ({ kind: 'status', status: 503, message: 'busy', headers: { 'retry-after': '1' } }));
    const limited = await responsesUpstream(() => ({ kind: 'stream', events: [], failWith: { code: 'rate_limit_exceeded', message: 'slow down', param: null } }));
    const healthy = await responsesUpstream(() => ({ kind: 'stream', events: [{ type: 'content', text: 'From the third.' }, finish('stop')] }));
    const { events, error } = await generate({
      deployments: [overloaded, limited, healthy].map((server) => ({ baseUrl: server.baseUrl, model: 'm', api: 'responses' as const })),
      retry: { maxAttempts: 3, baseDelayMs: 1 },
    });
    expect(error).toBeUndefined();
    expect(text(events, 'content')).toBe('From the third.');
    expect([overloaded, limited, healthy].map((server) => server.requests.length)).toEqual([1, 1, 1]);
  });

  it('should map the runtime refusing the request (400) to our 400, not retried', async () => {
    const { error, server } = await against({ kind: 'status', status: 400, message: 'context too long' });
    expect(error).toMatchObject({ code: 'invalid_value', status: 400, message: expect.stringContaining('context too long') as string });
    expect(server.requests).toHaveLength(1);
  });

  it('should serve chat completions and Responses requests through our handler from a Responses deployment, JSON and stream', async () => {
    const upstream = await responsesUpstream(() => ({ kind: 'stream', events: [{ type: 'content', text: 'Hi from Responses' }, finish('stop')] }));
    const engine = createUpstreamEngine({ baseUrl: upstream.baseUrl, model: 'm', api: 'responses' });
    const front = await startFrontServer('fastify', { accessControl: insecureAcceptAnyApiKey(), registry: createModelRegistry({ engine }) });
    try {
      const json = await postChat(front.baseUrl, { model: 'quantum-flash', messages: [{ role: 'user', content: 'Hi' }] }, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(json.status).toBe(200);
      expect(((await json.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Hi from Responses');
      const stream = await postChat(front.baseUrl, { model: 'quantum-flash', stream: true, messages: [{ role: 'user', content: 'Hi' }] }, { headers: { authorization: `Bearer ${apiKey}` } });
      const body = await stream.text();
      expect(body).toContain('"content":"Hi from Responses"');
      expect(body).toContain('data: [DONE]');
      // And our own Responses API, JSON and stream, on the same deployment.
      const post = (body: Record<string, unknown>) =>
        fetch(`${front.baseUrl}/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify(body) });
      const response = (await (await post({ model: 'quantum-flash', input: 'Hi' })).json()) as { status: string; output: { type: string; content: { text: string }[] }[] };
      expect(response.status).toBe('completed');
      expect(response.output.find((item) => item.type === 'message')?.content[0]?.text).toBe('Hi from Responses');
      const events = await (await post({ model: 'quantum-flash', input: 'Hi', stream: true })).text();
      expect(events).toContain('"delta":"Hi from Responses"');
      expect(events).toContain('event: response.completed');
      expect(upstream.requests.map((record) => record.url)).toEqual(['/v1/responses', '/v1/responses', '/v1/responses', '/v1/responses']);
    } finally {
      await front.close();
    }
  });
});

describe("a hostile upstream on api: 'responses'", () => {
  it('should refuse one endless event once it passes the event cap', async () => {
    const { error, events } = await against({ kind: 'endless-event', mib: 64 });
    expect(events).toEqual([]);
    expect(error).toMatchObject({ code: 'upstream_error', status: 502, message: expect.stringMatching(/a line longer than 4194304 characters/) as string });
  }, 60_000);

  /** One call whose arguments are `mib` MiB, in deltas of `piece` characters. */
  function* hugeCall(mib: number, piece: number): Generator<ChatEngineEvent> {
    yield { type: 'tool-call', index: 0, name: 'lookup', argumentsDelta: '' };
    const delta = 'b'.repeat(piece);
    for (let sent = 0; sent < mib * 1024 * 1024; sent += piece) yield { type: 'tool-call', index: 0, argumentsDelta: delta };
    yield finish('tool_calls', { promptTokens: 9, completionTokens: 4, reasoningTokens: 0 });
  }

  it('should cut a tool call with 10 MiB of arguments under max_tokens 100: length, charged 100, arguments bounded', async () => {
    const { error, events } = await against({ kind: 'stream', events: hugeCall(10, 4096) }, { ...plain, maxTokens: 100 });
    expect(error).toBeUndefined();
    expect(lastFinish(events)).toMatchObject({ reason: 'length', usage: { completionTokens: 100 } });
    expect(argumentsOf(events).length).toBeLessThanOrEqual((100 * 4 + 64) * 4);
  }, 60_000);

  it('should refuse 10 MiB of tool arguments in one event past the event cap', async () => {
    const { error, events } = await against({ kind: 'stream', events: hugeCall(10, 10 * 1024 * 1024) }, { ...plain, maxTokens: 100 });
    expect(argumentsOf(events)).toBe('');
    expect(error).toMatchObject({ code: 'upstream_error', message: expect.stringMatching(/an event longer than|a line longer than/) as string });
  }, 60_000);

  it('should refuse a tool call past the arguments cap, as the chat reader does', async () => {
    const { error } = await against({ kind: 'stream', events: hugeCall(0.0625, 1024) }, { ...plain, maxTokens: 8192 }, { limits: { maxToolArgumentsLength: 10_000 } });
    expect(error).toMatchObject({ code: 'upstream_error', message: expect.stringContaining('a tool call whose arguments are longer than 10000 characters') as string });
  });

  it('should charge our own count, not the one output token an answer of 20 KB reports', async () => {
    const replaced: UsageReplacement[] = [];
    const pieces: ChatEngineEvent[] = Array.from({ length: 10 }, () => ({ type: 'content', text: 'c'.repeat(2048) }));
    const { events } = await against({ kind: 'stream', events: [...pieces, finish('stop', { promptTokens: 9, completionTokens: 1, reasoningTokens: 0 })] }, { ...plain, maxTokens: 8192 }, {
      onUsageReplaced: (report) => void replaced.push(report),
    });
    expect(lastFinish(events)).toMatchObject({ reason: 'stop', usage: { completionTokens: 10 * 512 } });
    expect(replaced[0]?.reasons[0]).toMatch(/^completion_tokens \(1\) is below what the relayed text holds/);
  });
});
