import { QuantumChatError, type ChatEngineEvent, type ChatEngineRequest } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createReplayEngine } from '../src/index.js';

const request = { model: 'quantum-lite', messages: [], tools: [], toolChoice: 'none', parallelToolCalls: true, temperature: 0.7, maxTokens: 16, reasoning: false } as ChatEngineRequest;
const script = ['{"type":"content","text":"Hel"}', '{"type":"content","text":"lo"}', '{"type":"finish","reason":"stop","usage":{"promptTokens":1,"completionTokens":2,"reasoningTokens":0}}'].join('\n');

async function drain(iterable: AsyncIterable<ChatEngineEvent>): Promise<ChatEngineEvent[]> {
  const events: ChatEngineEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe('createReplayEngine', () => {
  it('should yield the script, each event in its own macrotask', async () => {
    const engine = createReplayEngine(script);
    const iterator = engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })[Symbol.asyncIterator]();
    let settled = false;
    const first = iterator.next().then((step) => ((settled = true), step));
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    expect(settled, 'no event within microtasks').toBe(false);
    const events = [(await first).value as ChatEngineEvent, ...(await drain({ [Symbol.asyncIterator]: () => iterator }))];
    expect(events.map((event) => event.type)).toEqual(['content', 'content', 'finish']);
    expect(engine.yielded).toBe(3);
    expect(engine.requests).toHaveLength(1);
  });

  it('should replay the script after each next-call line on the next call, and the last one after that', async () => {
    const engine = createReplayEngine(`{"type":"content","text":"first"}\n{"type":"next-call"}\n${script}`);
    const context = { signal: new AbortController().signal, requestId: 'r' };
    const texts = async () => (await drain(engine.generate(request, context))).map((event) => (event.type === 'content' ? event.text : event.type));
    expect(await texts()).toEqual(['first']);
    expect(await texts()).toEqual(['Hel', 'lo', 'finish']);
    expect(await texts()).toEqual(['Hel', 'lo', 'finish']);
    expect(engine.requests).toHaveLength(3);
  });

  it('should throw a QuantumChatError with the code of an error line', async () => {
    const engine = createReplayEngine('{"type":"content","text":"a"}\n{"type":"error","code":"upstream_error","message":"gone"}\n');
    const failure = await drain(engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })).catch((error: unknown) => error);
    expect(QuantumChatError.isInstance(failure) && failure.code).toBe('upstream_error');
  });

  it('should stop at once when the signal aborts', async () => {
    const engine = createReplayEngine(script);
    const controller = new AbortController();
    const iterator = engine.generate(request, { signal: controller.signal, requestId: 'r' })[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort(new Error('client left'));
    await expect(iterator.next()).rejects.toThrow('client left');
    expect(engine.yielded).toBe(1);
  });

  it('should refuse to run without a script', async () => {
    const engine = createReplayEngine(undefined);
    await expect(drain(engine.generate(request, { signal: new AbortController().signal, requestId: 'r' }))).rejects.toThrow(/must not call the engine/);
  });

  it('should hold the last event until the first frame is seen', async () => {
    const engine = createReplayEngine(script, { holdLastEvent: true, holdTimeoutMs: 5000 });
    const iterator = engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    const last = iterator.next();
    const raced = await Promise.race([last.then(() => 'released'), new Promise((resolve) => setTimeout(() => resolve('held'), 50))]);
    expect(raced).toBe('held');
    engine.markFirstFrame();
    expect((await last).value).toMatchObject({ type: 'finish' });
    expect(engine.firstFrameBeforeLastEvent).toBe(true);
  });
});
