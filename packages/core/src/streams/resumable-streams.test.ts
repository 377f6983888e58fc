import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../auth/parse-api-key.js';
import { staticApiKeys } from '../auth/static-api-keys.js';
import type { ChatEngine, ChatEngineEvent } from '../engine/chat-engine.js';
import type { ChatRequestRecord } from '../run/chat-request-observer.js';
import { createChatHandler, type ChatHandlerOptions } from '../http/create-chat-handler.js';
import type { GenerateId } from '../ids.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import { createMemoryStreamStore } from './memory-stream-store.js';

const key = generateApiKey('live');
const sameOrgKey = generateApiKey('live');
const otherOrgKey = generateApiKey('live');
const testKey = generateApiKey('test');
const accessControl = staticApiKeys([
  { key, organisationId: 'acme' },
  { key: sameOrgKey, organisationId: 'acme' },
  { key: otherOrgKey, organisationId: 'globex' },
  { key: testKey, organisationId: 'acme' },
]);

const usage = { promptTokens: 5, completionTokens: 6, reasoningTokens: 2 };

/** An engine whose events come out one per `release()`: the test decides when the run moves on. */
function gatedEngine(events: ChatEngineEvent[]) {
  const waiting: Array<() => void> = [];
  let credit = 0;
  let aborted: AbortSignal | undefined;
  const engine: ChatEngine = {
    async *generate(_request, context) {
      aborted = context.signal;
      for (const event of events) {
        while (credit === 0) await new Promise<void>((resolve) => waiting.push(resolve));
        credit--;
        if (context.signal.aborted) throw context.signal.reason;
        yield event;
      }
    },
    countTokens: (text) => text.length,
  };
  return {
    engine,
    release(count = 1) {
      credit += count;
      for (const wake of waiting.splice(0)) wake();
    },
    get signal() {
      return aborted;
    },
  };
}

const answer: ChatEngineEvent[] = [
  { type: 'reasoning', text: 'think' },
  { type: 'content', text: 'Hello' },
  { type: 'tool-call', index: 0, name: 'lookup', argumentsDelta: '{"q":' },
  { type: 'tool-call', index: 1, name: 'fetch', argumentsDelta: '{}' },
  { type: 'tool-call', index: 0, argumentsDelta: '"x"}' },
  { type: 'content', text: ' world' },
  { type: 'finish', reason: 'stop', usage },
];

/** Sequential ids counted per kind: a resume's request id does not shift the tool-call ids of a run. */
function idsPerKind(): GenerateId {
  const counters = new Map<string, number>();
  return (kind) => {
    const next = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, next);
    return `${kind === 'completion' ? 'chatcmpl-' : kind === 'tool-call' ? 'call_' : 'req_'}${String(next).padStart(24, '0')}`;
  };
}

/** An engine that says one thing, then waits until it is aborted. */
const hangingEngine: ChatEngine = {
  async *generate(_request, context) {
    yield { type: 'reasoning', text: 'think' };
    await new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
  },
};

function setup(overrides: Partial<ChatHandlerOptions> = {}, events = answer) {
  const gate = gatedEngine(events);
  const settled: ChatRequestRecord[] = [];
  const handler = createChatHandler({
    accessControl,
    engine: gate.engine,
    generateId: idsPerKind(),
    now: () => 1_700_000_000_000,
    onRequestSettled: (record) => settled.push(record),
    ...overrides,
  });
  return { handler, gate, settled };
}

const request = (body: Record<string, unknown>, format?: 'openai') =>
  new Request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(format ? { 'x-stream-format': format } : {}) },
    body: JSON.stringify({ model: 'quantum-reasoner', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
const resumable = { stream: true, stream_options: { resumable: true } };

function get(path: string, headers: Record<string, string> = {}, apiKey = key) {
  return new Request(`http://127.0.0.1/v1${path}`, { headers: { authorization: `Bearer ${apiKey}`, ...headers } });
}

/** Reads a body to its end. */
async function readAll(response: Response): Promise<string> {
  return response.text();
}

/** Reads a body until `predicate` holds for what arrived, then drops the connection. */
async function readUntil(response: Response, predicate: (text: string) => boolean, controller: AbortController): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!predicate(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  await reader.cancel().catch(() => undefined);
  return text;
}

const lastId = (text: string) => Number([...text.matchAll(/^id: (\d+)$/gm)].at(-1)?.[1] ?? 0);

describe('resumable streams', () => {
  it('should number every frame, start with retry, and name the stream in a header', async () => {
    const { handler, gate } = setup();
    gate.release(100);
    const response = await handler.fetch(request(resumable));
    expect(response.status).toBe(200);
    const id = response.headers.get('x-quantum-stream-id');
    expect(id).toMatch(/^chatcmpl-/);
    const text = await readAll(response);
    expect(text.startsWith('retry: 1000\nid: 1\nevent: thought_trace\n')).toBe(true);
    const frames = text.split('\n\n').filter(Boolean);
    expect(frames.map((frame) => /(?:^|\n)id: (\d+)\n/.exec(frame)?.[1])).toEqual(frames.map((_, index) => String(index + 1)));
    expect(frames.at(-1)).toBe(`id: ${frames.length}\ndata: [DONE]`);
    expect(text).toContain(`"id":"${id}"`);
  });

  it('should give a resume after a dropped connection exactly the rest of the stream, in both formats', async () => {
    for (const format of [undefined, 'openai'] as const) {
      const plain = setup();
      plain.gate.release(100);
      const whole = await readAll(await plain.handler.fetch(request(resumable, format)));

      const { handler, gate, settled } = setup();
      const controller = new AbortController();
      gate.release(3);
      const first = await handler.fetch(new Request(request(resumable, format), { signal: controller.signal }));
      const id = first.headers.get('x-quantum-stream-id')!;
      const before = await readUntil(first, (text) => lastId(text) >= 3, controller);
      // The run goes on without its client.
      gate.release(100);
      const resumed = await handler.fetch(get(`/chat/completions/${id}/stream`, { 'last-event-id': String(lastId(before)) }));
      expect(resumed.status).toBe(200);
      const after = await readAll(resumed);
      expect(before + after).toBe(whole);
      // Usage settled once, by the run, for the whole answer.
      expect(settled).toHaveLength(1);
      expect(settled[0]).toMatchObject({ status: 200, completionTokens: 6, interrupted: false });
    }
  });

  it('should resume with ?starting_after= and from the start without either', async () => {
    const { handler, gate } = setup();
    gate.release(100);
    const first = await handler.fetch(request(resumable));
    const id = first.headers.get('x-quantum-stream-id')!;
    const whole = await readAll(first);
    expect(await readAll(await handler.fetch(get(`/chat/completions/${id}/stream`)))).toBe(whole);
    const tail = await readAll(await handler.fetch(get(`/chat/completions/${id}/stream?starting_after=4`)));
    expect(whole.endsWith(tail)).toBe(true);
    expect(tail.startsWith('id: 5\n')).toBe(true);
    const disagree = await handler.fetch(get(`/chat/completions/${id}/stream?starting_after=4`, { 'last-event-id': '3' }));
    expect(disagree.status).toBe(400);
    expect((await disagree.json()).error.param).toBe('starting_after');
    const bad = await handler.fetch(get(`/chat/completions/${id}/stream?starting_after=-1`));
    expect(bad.status).toBe(400);
  });

  it('should answer the result as a chat.completion once ended, 409 while it runs', async () => {
    const { handler, gate } = setup();
    gate.release(2);
    const first = await handler.fetch(request(resumable));
    const id = first.headers.get('x-quantum-stream-id')!;
    const running = await handler.fetch(get(`/chat/completions/${id}`));
    expect(running.status).toBe(409);
    expect(running.headers.get('retry-after')).toBe('1');
    expect((await running.json()).error.code).toBe('stream_in_progress');
    gate.release(100);
    await readAll(first);
    const result = await handler.fetch(get(`/chat/completions/${id}`, {}, sameOrgKey));
    expect(result.status).toBe(200);
    const body = await result.json();
    expect(body).toMatchObject({ id, object: 'chat.completion', model: 'quantum-reasoner' });
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].message.content).toBe('Hello world');
    expect(body.choices[0].message.reasoning_content).toBe('think');
    expect(body.choices[0].message.tool_calls.map((call: { function: { name: string; arguments: string } }) => call.function)).toEqual([
      { name: 'lookup', arguments: '{"q":"x"}' },
      { name: 'fetch', arguments: '{}' },
    ]);
    expect(body.usage.completion_tokens).toBe(6);
  });

  it('should answer 404 stream_not_found to another organisation, another key kind, an unknown id and an expired stream', async () => {
    let time = 1_700_000_000_000;
    const store = createMemoryStreamStore({ retentionMs: 1000, now: () => time });
    const { handler, gate } = setup({ streams: { store } });
    gate.release(100);
    const first = await handler.fetch(request(resumable));
    const id = first.headers.get('x-quantum-stream-id')!;
    await readAll(first);
    for (const [path, apiKey] of [
      [`/chat/completions/${id}/stream`, otherOrgKey],
      [`/chat/completions/${id}`, otherOrgKey],
      [`/chat/completions/${id}/stream`, testKey],
      ['/chat/completions/chatcmpl-unknown/stream', key],
    ] as const) {
      const response = await handler.fetch(get(path, {}, apiKey));
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe('stream_not_found');
    }
    const cancelOther = await handler.fetch(new Request(`http://127.0.0.1/v1/chat/completions/${id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${otherOrgKey}` } }));
    expect(cancelOther.status).toBe(404);
    expect((await handler.fetch(get(`/chat/completions/${id}/stream`))).status).toBe(200);
    time += 1001;
    const expired = await handler.fetch(get(`/chat/completions/${id}/stream`));
    expect(expired.status).toBe(404);
    expect(store.size().streams).toBeLessThanOrEqual(1);
  });

  it('should stop the engine on cancel, end followers with a cancelled error frame and settle what was produced', async () => {
    for (const format of [undefined, 'openai'] as const) {
      const { handler, gate, settled } = setup();
      gate.release(2);
      const first = await handler.fetch(request(resumable, format));
      const id = first.headers.get('x-quantum-stream-id')!;
      const cancel = () => handler.fetch(new Request(`http://127.0.0.1/v1/chat/completions/${id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${sameOrgKey}` } }));
      const cancelled = await cancel();
      expect(cancelled.status).toBe(200);
      expect(await cancelled.json()).toEqual({ id, object: 'chat.completion.stream', status: 'cancelled' });
      expect(gate.signal?.aborted).toBe(true);
      const text = await readAll(first);
      expect(text).toMatch(format === 'openai' ? /\ndata: \{"error":\{[^\n]*"code":"cancelled"/ : /\nevent: error\ndata: \{"error":\{[^\n]*"code":"cancelled"/);
      expect(text).not.toContain('[DONE]');
      expect(settled).toHaveLength(1);
      expect(settled[0]).toMatchObject({ interrupted: true, completionTokens: 'think'.length + 'Hello'.length });
      // Idempotent: a second cancel answers the same status.
      expect(await (await cancel()).json()).toEqual({ id, object: 'chat.completion.stream', status: 'cancelled' });
      const result = await handler.fetch(get(`/chat/completions/${id}`));
      expect(result.status).toBe(409);
      expect((await result.json()).error.code).toBe('cancelled');
    }
  });

  it('should end a run without a client at its run timeout with an upstream_timeout frame, and settle what it produced', async () => {
    for (const format of [undefined, 'openai'] as const) {
      // An engine that says two things, then never finishes nor is stopped by anything but an abort.
      const store = createMemoryStreamStore();
      const { handler, gate, settled } = setup({ streams: { store, runTimeoutMs: 20 } });
      gate.release(2);
      const controller = new AbortController();
      const first = await handler.fetch(new Request(request(resumable, format), { signal: controller.signal }));
      const id = first.headers.get('x-quantum-stream-id')!;
      const before = await readUntil(first, (text) => lastId(text) >= 2, controller);
      // The client left; the run's time runs out without it (read from the store: a resume would be a reader, which keeps the run).
      let rest = '';
      const follow = store.follow(id, { after: lastId(before) });
      for (let step = await follow.next(); step.done !== true; step = await follow.next()) rest += step.value.text;
      expect(rest).toMatch(format === 'openai' ? /^id: \d+\ndata: \{"error":\{[^\n]*"code":"upstream_timeout"/m : /^id: \d+\nevent: error\ndata: \{"error":\{[^\n]*"code":"upstream_timeout"/m);
      expect(rest).not.toContain('[DONE]');
      expect(gate.signal?.aborted).toBe(true);
      expect(settled).toHaveLength(1);
      expect(settled[0]).toMatchObject({ interrupted: true, completionTokens: 'think'.length + 'Hello'.length });
      const result = await handler.fetch(get(`/chat/completions/${id}`));
      expect(result.status).toBe(504);
      expect((await result.json()).error.code).toBe('upstream_timeout');
    }
  });

  it('should let a run past its run timeout go on while it has a reader, and end it as soon as the reader leaves', async () => {
    const store = createMemoryStreamStore();
    const { handler, gate, settled } = setup({ streams: { store, runTimeoutMs: 1 } });
    gate.release(1);
    const reading = await handler.fetch(request(resumable));
    const id = reading.headers.get('x-quantum-stream-id')!;
    const reader = reading.body!.getReader();
    await reader.read();
    // A timer set later for longer fires after the run's deadline.
    await new Promise((resolve) => setTimeout(resolve, 5));
    gate.release(1);
    const second = await readUntil(await handler.fetch(get(`/chat/completions/${id}/stream`)), (text) => lastId(text) >= 2, new AbortController());
    expect(second).toContain('Hello');
    expect((await store.describe(id))?.state).toBe('running');
    // The last reader leaves: the overdue run ends at once.
    await reader.cancel();
    let rest = '';
    const follow = store.follow(id, { after: 2 });
    for (let step = await follow.next(); step.done !== true; step = await follow.next()) rest += step.value.text;
    expect(rest).toContain('"code":"upstream_timeout"');
    expect(settled).toHaveLength(1);
  });

  it('should refuse stream_options.resumable without stream, and stop a plain stream on disconnect as before', async () => {
    const { handler, gate } = setup();
    const refused = await handler.fetch(request({ stream_options: { resumable: true } }));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.param).toBe('stream_options.resumable');
    gate.release(1);
    const controller = new AbortController();
    const plain = await handler.fetch(new Request(request({ stream: true }), { signal: controller.signal }));
    expect(plain.headers.get('x-quantum-stream-id')).toBeNull();
    const text = await readUntil(plain, (sofar) => sofar.includes('think'), controller);
    expect(text).not.toContain('id: ');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(gate.signal?.aborted).toBe(true);
  });

  it('should make every stream resumable with resumableByDefault unless the request says false, and refuse with refuseReason', async () => {
    const { handler, gate } = setup({ streams: { resumableByDefault: true } });
    gate.release(100);
    const byDefault = await handler.fetch(request({ stream: true }));
    expect(byDefault.headers.get('x-quantum-stream-id')).not.toBeNull();
    await readAll(byDefault);
    const optedOut = await handler.fetch(request({ stream: true, stream_options: { resumable: false } }));
    expect(optedOut.headers.get('x-quantum-stream-id')).toBeNull();
    await readAll(optedOut);
    const refusing = setup({ streams: { refuseReason: 'several instances share no stream store.' } });
    const refused = await refusing.handler.fetch(request(resumable));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatchObject({ param: 'stream_options.resumable', message: expect.stringContaining('several instances') });
  });

  it('should start with a keep-alive when the engine is silent past the interval, then number the frames, or end with the error frame', async () => {
    for (const fails of [false, true]) {
      let speak: () => void = () => undefined;
      const silent: ChatEngine = {
        async *generate() {
          await new Promise<void>((resolve) => (speak = resolve));
          if (fails) throw new QuantumChatError('upstream_error', 'The model went away.');
          yield* answer;
        },
      };
      const { handler } = setup({ engine: silent, keepAliveIntervalMs: 5 });
      const response = await handler.fetch(request(resumable));
      expect(response.status).toBe(200);
      const id = response.headers.get('x-quantum-stream-id')!;
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe(': keep-alive\n\n');
      speak();
      let text = '';
      for (let step = await reader.read(); !step.done; step = await reader.read()) text += new TextDecoder().decode(step.value);
      const stored = await readAll(await handler.fetch(get(`/chat/completions/${id}/stream`)));
      expect(text.replace(/^: keep-alive\n\n/gm, '')).toBe(stored);
      if (fails) expect(stored).toMatch(/^retry: 1000\nid: 1\nevent: error\ndata: \{"error":\{[^\n]*"code":"upstream_error"/);
      else expect(stored.startsWith('retry: 1000\nid: 1\nevent: thought_trace\n')).toBe(true);
    }
  });

  it('should count a resume, a result and a cancel against the request limit, with its headers, and refuse past it', async () => {
    let requests = 0;
    const limited = {
      ...accessControl,
      async admitRequest() {
        requests++;
        if (requests > 3) throw new QuantumChatError('rate_limit_exceeded', 'Too many requests.', { headers: { 'retry-after': '1' } });
        return { headers: { 'x-ratelimit-remaining-requests': String(3 - requests) } };
      },
    };
    const { handler, gate } = setup({ accessControl: limited });
    gate.release(100);
    const first = await handler.fetch(request(resumable));
    const id = first.headers.get('x-quantum-stream-id')!;
    await readAll(first);
    const resumed = await handler.fetch(get(`/chat/completions/${id}/stream`));
    expect(resumed.headers.get('x-ratelimit-remaining-requests')).toBe('2');
    await readAll(resumed);
    expect((await handler.fetch(get(`/chat/completions/${id}`))).headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect((await handler.fetch(get('/chat/completions/chatcmpl-unknown'))).status).toBe(404);
    const refused = await handler.fetch(get(`/chat/completions/${id}/stream`));
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe('rate_limit_exceeded');
  });

  it('should cancel the oldest run without a reader past maxDetachedPerOrganisation', async () => {
    const { handler } = setup({ engine: hangingEngine, streams: { maxDetachedPerOrganisation: 2 } });
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      const controller = new AbortController();
      const response = await handler.fetch(new Request(request(resumable), { signal: controller.signal }));
      ids.push(response.headers.get('x-quantum-stream-id')!);
      await readUntil(response, (text) => text.includes('id: 1\n'), controller);
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
    const oldest = await readAll(await handler.fetch(get(`/chat/completions/${ids[0]}/stream`)));
    expect(oldest).toContain('"code":"cancelled"');
    // The younger ones run on.
    expect((await handler.fetch(get(`/chat/completions/${ids[1]}`))).status).toBe(409);
    const status = await handler.fetch(new Request(`http://127.0.0.1/v1/chat/completions/${ids[2]}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${key}` } }));
    expect((await status.json()).status).toBe('cancelled');
    expect(await readAll(await handler.fetch(get(`/chat/completions/${ids[2]}/stream`)))).toContain('"code":"cancelled"');
  });
});
