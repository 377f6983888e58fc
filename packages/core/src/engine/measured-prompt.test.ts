import { describe, expect, it } from 'vitest';
import type { ChatEngine, ChatEngineRequest, PromptMeasure } from './chat-engine.js';
import { countPromptAtOnceBelow, measurePromptOf } from './measured-prompt.js';

const request = { model: 'quantum-lite', messages: [{ role: 'user', content: 'Hello there' }], tools: [] } as unknown as ChatEngineRequest;
const generate: ChatEngine['generate'] = async function* () {};

/** An engine whose measure is `measure`, noting each measure and each count. */
function measuring(measure: (calls: string[]) => PromptMeasure): { engine: ChatEngine; calls: string[] } {
  const calls: string[] = [];
  return { engine: { generate, measurePrompt: () => (calls.push('measure'), measure(calls)) }, calls };
}

describe('measurePromptOf', () => {
  it('should count once, however often the count is asked for, and read it back at once', () => {
    const { engine, calls } = measuring((calls) => ({ bound: 40, count: () => (calls.push('count'), 12) }));
    const prompt = measurePromptOf(engine, request);
    expect(prompt.bound).toBe(40);
    expect(prompt.count?.()).toBe(12);
    expect(prompt.count?.()).toBe(12);
    expect(prompt.tokensNow()).toBe(12);
    expect(calls).toEqual(['measure', 'count']);
  });

  it('should give the bound as the count when the measure has no count, counting nothing', () => {
    const { engine, calls } = measuring(() => ({ bound: 9 }));
    const prompt = measurePromptOf(engine, request);
    expect(prompt.count).toBeUndefined();
    expect(prompt.tokensNow()).toBe(9);
    expect(calls).toEqual(['measure']);
  });

  it('should read a count in turns as the bound until it is done, then as the count, never counting twice', async () => {
    let finish: (tokens: number) => void = () => {};
    const { engine, calls } = measuring((calls) => ({ bound: 50_000, count: () => (calls.push('count in turns'), new Promise<number>((resolve) => (finish = resolve))) }));
    const prompt = measurePromptOf(engine, request);
    const counting = prompt.count!();
    expect(counting).toBeInstanceOf(Promise);
    expect(prompt.tokensNow()).toBe(50_000);
    finish(12_345);
    expect(await counting).toBe(12_345);
    expect(prompt.tokensNow()).toBe(12_345);
    expect(prompt.count!()).toBe(12_345);
    expect(calls).toEqual(['measure', 'count in turns']);
  });

  it('should read at once with the deprecated countPromptTokens of an engine that still has it beside measurePrompt', () => {
    const calls: string[] = [];
    const engine: ChatEngine = {
      generate,
      measurePrompt: () => ({ bound: 50_000, count: () => (calls.push('count in turns'), Promise.resolve(12_345)) }),
      countPromptTokens: () => (calls.push('count'), 12_345),
    };
    expect(measurePromptOf(engine, request).tokensNow()).toBe(12_345);
    expect(calls).toEqual(['count']);
  });

  it('should measure an engine that still has the deprecated counting methods as the core counted it before', async () => {
    const calls: string[] = [];
    const legacy = (length: number): ChatEngine => ({
      generate,
      countPromptTokens: () => (calls.push('count'), length),
      estimatePromptTokens: () => (calls.push('estimate'), 2 * length),
      countPromptTokensAsync: async () => (calls.push('count in turns'), length),
    });
    // A bound under the threshold: counted at once.
    const short = measurePromptOf(legacy(10), request);
    expect(short.bound).toBe(20);
    expect(short.count!()).toBe(10);
    // Over it: in turns.
    const long = measurePromptOf(legacy(countPromptAtOnceBelow), request);
    expect(await long.count!()).toBe(countPromptAtOnceBelow);
    expect(calls).toEqual(['estimate', 'count', 'estimate', 'count in turns']);
    // Read at once before it was counted: the synchronous count, not the bound.
    calls.length = 0;
    expect(measurePromptOf(legacy(countPromptAtOnceBelow), request).tokensNow()).toBe(countPromptAtOnceBelow);
    expect(calls).toEqual(['estimate', 'count']);
    // Without a bound: counted at once, the count is the bound.
    calls.length = 0;
    const exact = measurePromptOf({ generate, countPromptTokens: () => (calls.push('count'), 7) }, request);
    expect(exact).toMatchObject({ bound: 7, count: undefined });
    expect(calls).toEqual(['count']);
    // Nothing to count with: 0.
    expect(measurePromptOf({ generate }, request).tokensNow()).toBe(0);
  });
});
