import type { ChatEngine, ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { describe, expect, it } from 'vitest';
import { referenceEngineOnFirstUse } from './reference-engine-on-first-use.js';

function request(content: string, extra: Partial<ChatEngineRequest> = {}): ChatEngineRequest {
  return {
    model: 'quantum-flash',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content },
    ],
    tools: [],
    toolChoice: 'none',
    parallelToolCalls: true,
    temperature: 1,
    maxTokens: 200,
    reasoning: false,
    ...extra,
  };
}

const context = () => ({ signal: new AbortController().signal, requestId: 'req_first_use' });

async function collect(events: AsyncIterable<ChatEngineEvent>): Promise<ChatEngineEvent[]> {
  const collected: ChatEngineEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

async function countOf(engine: ChatEngine, prompt: ChatEngineRequest): Promise<number> {
  const measure = engine.measurePrompt!(prompt);
  return (await measure.count?.()) ?? measure.bound;
}

describe('referenceEngineOnFirstUse', () => {
  it('should answer its first request, loaded meanwhile, with the events of the reference engine', async () => {
    const lazy = referenceEngineOnFirstUse();
    const prompt = request('What is 17 * 3? And a word on Lisbon, please.', { seed: 7 });
    const expected = await collect(createReferenceEngine().generate(prompt, context()));
    // Two at once while the package loads: both wait for the one load.
    const [first, second] = await Promise.all([collect(lazy.generate(prompt, context())), collect(lazy.generate(prompt, context()))]);
    expect(first).toEqual(expected);
    expect(second).toEqual(expected);
    expect(expected.at(-1)).toMatchObject({ type: 'finish' });
  });

  it('should bound a prompt before the load at or above its exact count, and count it exactly once loaded', async () => {
    const reference = createReferenceEngine();
    const prompts = [
      request('Hello'),
      request('naïve café — 東京 🚀 \u{1F600}'.repeat(40)),
      request('lone \uD800 surrogate'),
      request('What is the weather?', {
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
        toolChoice: 'auto',
      }),
    ];
    for (const prompt of prompts) {
      const lazy = referenceEngineOnFirstUse();
      const exact = await countOf(reference, prompt);
      const before = lazy.measurePrompt!(prompt);
      expect(before.bound).toBeGreaterThanOrEqual(exact);
      expect(await before.count!()).toBe(exact);
      // Loaded now: the engine's own measure, bound and all.
      expect(lazy.measurePrompt!(prompt).bound).toBe(reference.measurePrompt!(prompt).bound);
      expect(lazy.countTokens!('Lisbon is a city.')).toBe(reference.countTokens!('Lisbon is a city.'));
    }
  });

  it('should leave a working engine behind when its first request was aborted', async () => {
    const lazy = referenceEngineOnFirstUse();
    const controller = new AbortController();
    controller.abort();
    await expect(collect(lazy.generate(request('Hi'), { signal: controller.signal, requestId: 'req_aborted' }))).rejects.toThrow();
    const events = await collect(lazy.generate(request('Hi'), context()));
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });
});
