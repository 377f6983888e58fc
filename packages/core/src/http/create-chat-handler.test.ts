import type { AccessControl, AdmissionDemand } from '../auth/access-control.js';
import { insecureAcceptAnyApiKey } from '../auth/static-api-keys.js';
import { describe, expect, it } from 'vitest';
import type { ChatEngine, ChatEngineEvent } from '../engine/chat-engine.js';
import { generateApiKey } from '../auth/parse-api-key.js';
import { createSequentialIdGenerator } from '../ids.js';
import { builtinModels } from '../models/builtin-models.js';
import { createModelRegistry } from '../models/model-registry.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { ChatRequestRecord } from '../run/chat-request-observer.js';
import { connectionFromSignal } from '../contract/client-connection.js';
import { createChatHandler } from './create-chat-handler.js';

const key = generateApiKey('live');

function scriptedEngine(events: ChatEngineEvent[]): ChatEngine {
  return {
    async *generate() {
      for (const event of events) yield event;
    },
  };
}

const usage = { promptTokens: 5, completionTokens: 3, reasoningTokens: 1 };
const answer: ChatEngineEvent[] = [
  { type: 'reasoning', text: 'think' },
  { type: 'content', text: 'Hello' },
  { type: 'content', text: ' world' },
  { type: 'finish', reason: 'stop', usage },
];

function post(body: unknown, headers: Record<string, string> = {}) {
  return new Request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('createChatHandler', () => {
  const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: scriptedEngine(answer), generateId: createSequentialIdGenerator(), now: () => 1_700_000_000_000 });

  it('should answer a plain request with a spec-shaped completion', async () => {
    const response = await handler.fetch(post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }], foo: 1 }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-quantum-ignored-params')).toBe('foo');
    const body = await response.json();
    expect(body.choices[0].message).toEqual({ role: 'assistant', content: 'Hello world', refusal: null });
    expect(body.usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, completion_tokens_details: { reasoning_tokens: 1 } });
  });

  it('should cut x-quantum-ignored-params at a name boundary, then a last element "..."', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 120 }, (_, index) => [`extra_field_number_${index}`, index]));
    const response = await handler.fetch(post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }], ...unknown }));
    const header = response.headers.get('x-quantum-ignored-params')!;
    expect(header.length).toBeLessThanOrEqual(1000);
    const names = header.split(', ');
    expect(names.at(-1)).toBe('...');
    expect(names.slice(0, -1)).toEqual(Object.keys(unknown).slice(0, names.length - 1));
  });

  it('should put reasoning_content before content for the reasoner', async () => {
    const response = await handler.fetch(post({ model: 'quantum-reasoner', messages: [{ role: 'user', content: 'hi' }] }));
    const text = await response.text();
    expect(text.indexOf('"reasoning_content"')).toBeLessThan(text.indexOf('"content"'));
  });

  it('should stream named events ending in [DONE]', async () => {
    const response = await handler.fetch(post({ model: 'quantum-reasoner', stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await response.text();
    expect(text.startsWith('event: thought_trace\ndata: {"delta":"think",')).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('should name the offending field in param', async () => {
    const response = await handler.fetch(post({ model: 'quantum-lite', messages: [{ role: 'robot', content: 'x' }] }));
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ code: 'invalid_value', param: 'messages[0].role' });
  });

  it('should refuse a body nested 10,000 levels without overflowing the stack', async () => {
    const response = await handler.fetch(post('['.repeat(10_000) + ']'.repeat(10_000)));
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('nesting_too_deep');
  });
});

describe('createChatHandler: what an access control is asked to admit', () => {
  /** An engine that counts a prompt as its characters, bounds it by twice that, and notes what it was asked. */
  function countingEngine(calls: string[], withBound: boolean): ChatEngine {
    const length = (request: { messages: { content?: string | null }[] }) => request.messages.reduce((sum, message) => sum + (message.content?.length ?? 0), 0);
    return {
      ...scriptedEngine(answer),
      countPromptTokens(request) {
        calls.push('count');
        return length(request);
      },
      ...(withBound
        ? {
            estimatePromptTokens(request) {
              calls.push('estimate');
              return 2 * length(request);
            },
            async countPromptTokensAsync(request) {
              calls.push('count in turns');
              return length(request);
            },
          }
        : {}),
    };
  }

  function admitting(seen: (demand: AdmissionDemand) => Promise<void> | void): AccessControl {
    return {
      ...insecureAcceptAnyApiKey(),
      async admit(_principal, demand) {
        await seen(demand);
        return { headers: {}, settle() {} };
      },
    };
  }

  it('should give the exact count, from an engine without a bound', async () => {
    const calls: string[] = [];
    const demands: AdmissionDemand[] = [];
    const handler = createChatHandler({ accessControl: admitting((demand) => void demands.push(demand)), engine: countingEngine(calls, false) });
    expect((await handler.fetch(post({ model: 'quantum-lite', max_tokens: 9, messages: [{ role: 'user', content: 'x'.repeat(5000) }] }))).status).toBe(200);
    expect(demands[0]).toMatchObject({ promptTokens: 5000, maxTokens: 9 });
    expect(demands[0]!.promptTokensBound).toBeUndefined();
    expect(calls).toEqual(['count']);
  });

  it('should give a bound and count only when asked, a long prompt in turns, and promptTokens exact when read', async () => {
    const calls: string[] = [];
    let counted: unknown;
    const lazy = createChatHandler({ accessControl: admitting(async (demand) => void (counted = await demand.countPromptTokens!())), engine: countingEngine(calls, true) });
    expect((await lazy.fetch(post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'x'.repeat(5000) }] }))).status).toBe(200);
    expect(counted).toBe(5000);
    expect(calls).toEqual(['estimate', 'count in turns']);

    // One that refuses on the bound alone never has the prompt counted.
    calls.length = 0;
    const refusing = createChatHandler({
      accessControl: admitting((demand) => {
        if (demand.promptTokensBound! > 1000) throw new QuantumChatError('rate_limit_exceeded', 'Too many requests.');
      }),
      engine: countingEngine(calls, true),
    });
    expect((await refusing.fetch(post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'x'.repeat(5000) }] }))).status).toBe(429);
    expect(calls).toEqual(['estimate']);

    // An access control written before bounds existed reads promptTokens: still the exact count.
    calls.length = 0;
    let read: unknown;
    const older = createChatHandler({ accessControl: admitting((demand) => void (read = demand.promptTokens)), engine: countingEngine(calls, true) });
    expect((await older.fetch(post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'short' }] }))).status).toBe(200);
    expect(read).toBe(5);
    expect(calls).toEqual(['estimate', 'count']);
  });
});

describe('createChatHandler: logprobs, pass-through and added models', () => {
  const logprob = (token: string, value: number) => ({ token, logprob: value, bytes: [...new TextEncoder().encode(token)], top_logprobs: [] });
  const scored: ChatEngineEvent[] = [
    { type: 'content', text: 'Hi', logprobs: [logprob('Hi', -0.25)] },
    { type: 'content', text: '!', logprobs: [logprob('!', -1)] },
    { type: 'finish', reason: 'stop', usage },
  ];
  const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: scriptedEngine(scored), generateId: createSequentialIdGenerator(), now: () => 1_700_000_000_000 });
  const ask = (fields: Record<string, unknown> = {}) => post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }], ...fields });

  it('should return the tokens\' logprobs only when they were asked for', async () => {
    const plain = await (await handler.fetch(ask())).json();
    expect(plain.choices[0].logprobs).toBeNull();
    const asked = await (await handler.fetch(ask({ logprobs: true }))).json();
    expect(asked.choices[0].logprobs).toEqual({ content: [logprob('Hi', -0.25), logprob('!', -1)], refusal: null });
  });

  it('should stream logprobs with each content chunk', async () => {
    const text = await (await handler.fetch(ask({ logprobs: true, stream: true, top_logprobs: 0 }))).text();
    const chunks = text.split('\n\n').filter((frame) => frame.startsWith('event: message')).map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)));
    expect(chunks[0].choices[0]).toEqual({ index: 0, delta: { role: 'assistant', content: 'Hi' }, logprobs: { content: [logprob('Hi', -0.25)], refusal: null }, finish_reason: null });
    expect(chunks[1].choices[0].logprobs.content).toEqual([logprob('!', -1)]);
    const unasked = await (await handler.fetch(ask({ stream: true }))).text();
    expect(unasked).not.toContain('logprobs');
  });

  it('should give unknown fields to an engine that passes everything through, and not call them ignored', async () => {
    const seen: unknown[] = [];
    const engine: ChatEngine = {
      passThrough: 'all',
      async *generate(request, context) {
        seen.push(request.extraFields);
        yield* scriptedEngine(scored).generate(request, context);
      },
    };
    const passing = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine });
    const response = await passing.fetch(ask({ top_k: 40, chat_template_kwargs: { enable_thinking: false } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-quantum-ignored-params')).toBeNull();
    expect(seen).toEqual([{ top_k: 40, chat_template_kwargs: { enable_thinking: false } }]);
    // The default engine gets nothing extra and the header names the fields.
    const other = await handler.fetch(ask({ top_k: 40 }));
    expect(other.headers.get('x-quantum-ignored-params')).toBe('top_k');
  });

  it('should give an engine only the unknown fields its policy forwards, naming the rest as ignored', async () => {
    const seen: unknown[] = [];
    const engineWith = (passThrough: ChatEngine['passThrough']): ChatEngine => ({
      passThrough,
      async *generate(request, context) {
        seen.push(request.extraFields);
        yield* scriptedEngine(scored).generate(request, context);
      },
    });
    const fields = { top_k: 40, store: true, service_tier: 'priority', min_p: 0.1 };
    const all = await createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: engineWith('all') }).fetch(ask(fields));
    expect(all.headers.get('x-quantum-ignored-params')).toBe('store, service_tier');
    const listed = await createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: engineWith(['min_p']) }).fetch(ask(fields));
    expect(listed.headers.get('x-quantum-ignored-params')).toBe('top_k, store, service_tier');
    const nothingListed = await createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: engineWith(['repetition_penalty']) }).fetch(ask(fields));
    expect(nothingListed.headers.get('x-quantum-ignored-params')).toBe('top_k, store, service_tier, min_p');
    expect(seen).toEqual([{ top_k: 40, min_p: 0.1 }, { min_p: 0.1 }, undefined]);
  });

  it('should list added models after the four, with their own owner and plan', async () => {
    const registry = createModelRegistry({
      engine: scriptedEngine(scored),
      models: [...builtinModels, { id: 'llama-3.1-8b', requiresPlan: null, reasoning: false, ownedBy: 'meta' }, { id: 'big-one', requiresPlan: 'elite', reasoning: false }],
    });
    const withModels = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), registry });
    const list = await (await withModels.fetch(new Request('http://127.0.0.1/v1/models'))).json();
    expect(list.data.map((model: { id: string; owned_by: string; requires_plan: string | null }) => [model.id, model.owned_by, model.requires_plan])).toEqual([
      ['quantum-lite', 'quantum', null],
      ['quantum-flash', 'quantum', null],
      ['quantum-reasoner', 'quantum', null],
      ['quantum-pro', 'quantum', 'elite'],
      ['llama-3.1-8b', 'meta', null],
      ['big-one', 'quantum', 'elite'],
    ]);
    const answered = await withModels.fetch(post({ model: 'llama-3.1-8b', messages: [{ role: 'user', content: 'hi' }] }));
    expect((await answered.json()).model).toBe('llama-3.1-8b');
  });

  describe('a client that leaves before its non-streaming answer', () => {
    /** A connection the test closes; the engine waits on its signal (a model still working). */
    function leavingRequest() {
      const left = new AbortController();
      const request = {
        method: 'POST',
        path: '/chat/completions',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: { kind: 'text' as const, text: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }] }) },
        connection: connectionFromSignal(left.signal, () => undefined),
      };
      return { request, leave: () => left.abort() };
    }

    it('should settle it as 499 (client_closed), with what was produced, and report no error', async () => {
      const records: ChatRequestRecord[] = [];
      const errors: unknown[] = [];
      let leave: () => void = () => undefined;
      const working: ChatEngine = {
        async *generate(_request, context) {
          yield { type: 'content', text: 'Hello there' };
          const { signal } = context;
          const aborted = new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
          leave();
          await aborted;
        },
        countTokens: (text) => text.split(' ').length,
      };
      const leaving = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: working, onRequestSettled: (record) => records.push(record), onError: (error) => errors.push(error) });
      const client = leavingRequest();
      leave = client.leave;
      const response = await leaving.handle(client.request);
      expect(response.status).toBe(499);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ status: 499, interrupted: true, completionTokens: 2, stream: false });
      expect(errors).toEqual([]);
    });

    it('should settle as 499 an answer its engine finished after the client had left', async () => {
      const records: ChatRequestRecord[] = [];
      let leave: () => void = () => undefined;
      const deaf: ChatEngine = {
        async *generate() {
          leave();
          yield* answer;
        },
      };
      const leaving = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: deaf, onRequestSettled: (record) => records.push(record) });
      const client = leavingRequest();
      leave = client.leave;
      await leaving.handle(client.request);
      expect(records.map((record) => [record.status, record.interrupted, record.completionTokens])).toEqual([[499, true, 3]]);
    });

    it('should record a request whose client left before its checks ended as 499, not as the check that failed', async () => {
      const records: ChatRequestRecord[] = [];
      const leaving = createChatHandler({
        engine: scriptedEngine(answer),
        accessControl: {
          authenticate: async () => {
            client.leave();
            throw new QuantumChatError('store_unavailable', 'The key store did not answer.');
          },
        },
        onRequestSettled: (record) => records.push(record),
      });
      const client = leavingRequest();
      expect((await leaving.handle(client.request)).status).toBe(499);
      expect(records.map((record) => record.status)).toEqual([499]);
    });
  });

  describe('the request timeout', () => {
    const chatHead = { method: 'POST', path: '/chat/completions', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };

    it('should answer 408 request_timeout (and close the connection) when a body it reads does not arrive in time', async () => {
      const records: ChatRequestRecord[] = [];
      const timed = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: scriptedEngine(answer), requestTimeoutMs: 40, onRequestSettled: (record) => records.push(record) });
      expect(timed.requestTimeoutMs).toBe(40);
      let asked = 0;
      const response = await timed.handle({
        ...chatHead,
        // A body that trickles forever: `read` never resolves.
        body: { kind: 'unread', read: () => (asked++, new Promise(() => undefined)) },
        connection: connectionFromSignal(new AbortController().signal, () => undefined),
      });
      expect(asked).toBe(1);
      expect(response.status).toBe(408);
      expect(response.headers.connection).toBe('close');
      expect(JSON.parse((response as { body: string }).body)).toEqual({
        error: { message: expect.stringContaining('40 ms'), type: 'invalid_request_error', param: null, code: 'request_timeout' },
      });
      expect(records.map((record) => record.status)).toEqual([408]);
    });

    it('should answer 408 for a body the host gave up on because its own request timeout passed', async () => {
      const response = await createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: scriptedEngine(answer) }).handle({
        ...chatHead,
        body: { kind: 'rejected', reason: 'timed-out' },
        connection: connectionFromSignal(new AbortController().signal, () => undefined),
      });
      expect(response.status).toBe(408);
      expect(JSON.parse((response as { body: string }).body).error.code).toBe('request_timeout');
    });

    it('should be 30 s by default, and off with 0', async () => {
      expect(createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: scriptedEngine(answer) }).requestTimeoutMs).toBe(30_000);
      const untimed = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: scriptedEngine(answer), requestTimeoutMs: 0 });
      const slow = untimed.handle({
        ...chatHead,
        body: { kind: 'unread', read: () => new Promise((resolve) => setTimeout(() => resolve({ kind: 'text', text: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }] }) }), 60)) },
        connection: connectionFromSignal(new AbortController().signal, () => undefined),
      });
      expect((await slow).status).toBe(200);
    });
  });
});

