import { insecureAcceptAnyApiKey } from '../auth/static-api-keys.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateApiKey } from '../auth/parse-api-key.js';
import type { ChatEngine, ChatEngineEvent } from '../engine/chat-engine.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { ChatRequestObserver, ChatRequestRecord } from './chat-request-observer.js';
import { createChatHandler } from '../http/create-chat-handler.js';

const key = generateApiKey('live');
const usage = { promptTokens: 5, completionTokens: 4, reasoningTokens: 2 };

/** An engine that waits for `release` before its first event, so a test controls the time to first token. */
function gatedEngine(events: ChatEngineEvent[]) {
  let release: () => void = () => undefined;
  let enter: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  const engine: ChatEngine = {
    async *generate() {
      enter();
      await gate;
      for (const event of events) yield event;
    },
  };
  return { engine, release, entered };
}

function post(body: unknown, apiKey: string | null = key) {
  return new Request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }) },
    body: JSON.stringify(body),
  });
}

const messages = [{ role: 'user', content: 'hi' }];
const answer: ChatEngineEvent[] = [
  { type: 'reasoning', text: 'th' },
  { type: 'content', text: 'Hello' },
  { type: 'tool-call', index: 0, name: 'lookup', argumentsDelta: '{}' },
  { type: 'finish', reason: 'stop', usage },
];

function watching() {
  const events: string[] = [];
  const records: ChatRequestRecord[] = [];
  const observer: ChatRequestObserver = {
    run(work) {
      events.push('run');
      return work();
    },
    onStreamStart: () => events.push('stream-start'),
    onSettled: (record) => {
      events.push('settled');
      records.push(record);
    },
  };
  return { events, records, observeRequest: () => observer };
}

describe('observeRequest and onRequestSettled', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('should report a streamed answer once, with its tokens, finish reason and time to first token', async () => {
    vi.useFakeTimers({ toFake: ['performance', 'Date'] });
    const { engine, release, entered } = gatedEngine(answer);
    const watch = watching();
    const settled: ChatRequestRecord[] = [];
    const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine, observeRequest: watch.observeRequest, onRequestSettled: (record) => settled.push(record) });
    const pending = handler.fetch(post({ model: 'quantum-reasoner', stream: true, messages }));
    await entered;
    vi.advanceTimersByTime(250);
    release();
    const response = await pending;
    await response.text();
    expect(watch.events).toEqual(['run', 'stream-start', 'settled']);
    expect(settled).toEqual(watch.records);
    const [record] = watch.records;
    expect(record).toMatchObject({
      model: 'quantum-reasoner',
      status: 200,
      stream: true,
      promptTokens: 5,
      completionTokens: 4,
      reasoningTokens: 2,
      finishReason: 'tool_calls',
      interrupted: false,
      principal: { kind: 'live' },
    });
    expect(record!.requestId).toBe(response.headers.get('x-request-id'));
    // The engine held its first event back for 250 ms (of a fake clock); nothing else took time.
    expect(record!.timeToFirstTokenMs).toBe(250);
    expect(record!.durationMs).toBe(250);
  });

  it('should report a JSON answer without a time to first token', async () => {
    const { engine, release } = gatedEngine(answer.slice(1, 2).concat(answer.slice(3)));
    release();
    const watch = watching();
    const response = await createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine, observeRequest: watch.observeRequest }).fetch(post({ model: 'quantum-lite', messages }));
    expect(response.status).toBe(200);
    expect(watch.events).toEqual(['run', 'settled']);
    expect(watch.records[0]).toMatchObject({ model: 'quantum-lite', status: 200, stream: false, finishReason: 'stop', timeToFirstTokenMs: undefined });
  });

  it('should report requests refused before their engine ran, with their status and no tokens', async () => {
    const { engine } = gatedEngine(answer);
    const watch = watching();
    const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine, observeRequest: watch.observeRequest });
    const refused = [
      [post({ model: 'quantum-lite', messages, stream: true }, null), 401, { stream: true, model: '', principal: undefined }],
      [post({ model: 'quantum-lite', messages: [] }), 400, { stream: false, model: '', principal: { kind: 'live' } }],
      [post({ model: 'no-such-model', messages, stream: true }), 404, { stream: true, model: '' }],
    ] as const;
    for (const [request, status] of refused) {
      const response = await handler.fetch(request);
      expect(response.status).toBe(status);
    }
    expect(watch.records.map((record) => record.status)).toEqual([401, 400, 404]);
    refused.forEach(([, , fields], index) => expect(watch.records[index]).toMatchObject({ ...fields, promptTokens: 0, completionTokens: 0, finishReason: undefined }));
  });

  it('should report an engine that fails before its first event once, with the error status', async () => {
    const engine: ChatEngine = {
      // eslint-disable-next-line require-yield
      async *generate() {
        throw new QuantumChatError('engine_unavailable', 'down');
      },
    };
    const watch = watching();
    const response = await createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine, observeRequest: watch.observeRequest }).fetch(post({ model: 'quantum-flash', messages, stream: true }));
    expect(response.status).toBe(503);
    expect(watch.events).toEqual(['run', 'settled']);
    expect(watch.records[0]).toMatchObject({ model: 'quantum-flash', status: 503, stream: true, interrupted: true });
  });

  it('should answer as usual when an observer throws', async () => {
    const { engine, release } = gatedEngine(answer);
    release();
    const throwing: ChatRequestObserver = {
      onStreamStart() {
        throw new Error('observer bug');
      },
      onSettled() {
        throw new Error('observer bug');
      },
    };
    const handler = createChatHandler({
      accessControl: insecureAcceptAnyApiKey(),
      engine,
      observeRequest: () => throwing,
      onRequestSettled: () => {
        throw new Error('logger bug');
      },
    });
    const response = await handler.fetch(post({ model: 'quantum-lite', messages, stream: true }));
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/data: \[DONE\]\n\n$/);
  });
});
