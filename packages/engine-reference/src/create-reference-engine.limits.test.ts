import type { ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it, vi } from 'vitest';
import { collect, createRequest, finishOf, searchTool, textOf, toolCallsOf, weatherTool } from '../test/request-fixtures.js';
import { countPromptTokens } from './count-prompt-tokens.js';
import { createReferenceEngine } from './create-reference-engine.js';

const engine = createReferenceEngine();
const context = () => ({ signal: new AbortController().signal, requestId: 'req_test' });
const run = (request: ChatEngineRequest) => collect(engine.generate(request, context()));
const tokens = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

describe('createReferenceEngine: maxTokens', () => {
  it('should cut the answer at the cap with finish length, as a prefix of the full answer', async () => {
    const request = createRequest({ user: 'Explain the water cycle to a child.' });
    const full = textOf(await run(request), 'content');
    for (const maxTokens of [1, 5, 20, 47]) {
      const events = await run({ ...request, maxTokens });
      const text = textOf(events, 'content');
      const { reason, usage } = finishOf(events);
      expect(reason).toBe('length');
      expect(full.startsWith(text)).toBe(true);
      expect(usage.completionTokens).toBe(tokens(text));
      expect(usage.completionTokens).toBeLessThanOrEqual(maxTokens);
      expect(usage.completionTokens).toBeGreaterThanOrEqual(maxTokens - 1);
    }
  });

  it('should finish with stop when the answer fits exactly', async () => {
    const request = createRequest({ user: 'Explain the water cycle to a child.' });
    const exact = finishOf(await run(request)).usage.completionTokens;
    const events = await run({ ...request, maxTokens: exact });
    expect(finishOf(events).reason).toBe('stop');
    expect(finishOf(await run({ ...request, maxTokens: exact - 1 })).reason).toBe('length');
  });

  it('should count reasoning against the cap and cut it first', async () => {
    const request = createRequest({ user: 'What is 2 + 2?', reasoning: true });
    const full = await run(request);
    const reasoningTokens = finishOf(full).usage.reasoningTokens;
    const short = await run({ ...request, maxTokens: 12 });
    expect(short.some((event) => event.type === 'content')).toBe(false);
    expect(finishOf(short)).toMatchObject({ reason: 'length', usage: { completionTokens: 12, reasoningTokens: 12 } });
    expect(tokens(textOf(short, 'reasoning'))).toBe(12);

    const both = await run({ ...request, maxTokens: reasoningTokens + 10 });
    const { usage } = finishOf(both);
    expect(usage).toMatchObject({ reasoningTokens, completionTokens: reasoningTokens + 10 });
    expect(tokens(textOf(both, 'content'))).toBe(10);
  });

  it('should cut tool-call arguments at the cap and finish with length', async () => {
    const request = createRequest({ user: 'Search the web for the best pizza places in Naples', tools: [searchTool], maxTokens: 6 });
    const events = await run(request);
    const [call] = toolCallsOf(events);
    expect(call?.name).toBe('search_web');
    expect(tokens(call?.name ?? '') + tokens(call?.arguments ?? '')).toBeLessThanOrEqual(6);
    expect(finishOf(events)).toMatchObject({ reason: 'length', usage: { completionTokens: 6 } });
  });
});

describe('createReferenceEngine: large input', () => {
  it('should answer a 1 MiB message in about the time it takes to tokenize it', async () => {
    const user = `${'search for weather on 2 + 2 for Paris about x '.repeat(22_000)}\nWhat is 6 * 7?`;
    const request = createRequest({ user, tools: [weatherTool, searchTool], maxTokens: 200 });
    let started = performance.now();
    countPromptTokens(request);
    const tokenizeMs = performance.now() - started;
    started = performance.now();
    const events = await run(request);
    // Printed, not bounded (timings belong in the bench); a superlinear scan of 1 MiB would not
    // finish within the test's timeout.
    console.info(`1 MiB message: answered in ${(performance.now() - started).toFixed(0)} ms, tokenized alone in ${tokenizeMs.toFixed(0)} ms`);
    expect(finishOf(events).reason).toBe('tool_calls');
  });
});

describe('createReferenceEngine: stop sequences', () => {
  it('should cut the answer before the first stop sequence and finish with stop', async () => {
    const request = createRequest({ user: 'Tell me about owls.', temperature: 0 });
    const full = textOf(await run(request), 'content');
    const events = await run({ ...request, stop: ['. ', 'zzz'] });
    const text = textOf(events, 'content');
    expect(text).toBe(full.slice(0, full.indexOf('. ')));
    expect(finishOf(events)).toMatchObject({ reason: 'stop', usage: { completionTokens: tokens(text) } });
  });

  it('should report length when the cap comes before the stop sequence', async () => {
    const events = await run(createRequest({ user: 'Tell me about owls.', stop: ['Ask a follow-up'], maxTokens: 3 }));
    expect(finishOf(events).reason).toBe('length');
  });
});

describe('createReferenceEngine: usage', () => {
  it('should report prompt tokens from the documented framing and the same count from measurePrompt and countPromptTokens', async () => {
    const request = createRequest({
      tools: [weatherTool],
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hi there' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Write a limerick' },
      ],
    });
    const expected =
      3 + tokens('system') + tokens('You are terse.') +
      3 + tokens('user') + tokens('Hi there') +
      3 + tokens('assistant') + tokens('Hello!') +
      3 + tokens('user') + tokens('Write a limerick') +
      tokens(JSON.stringify([weatherTool])) + 3;
    const events = await run(request);
    expect(finishOf(events).usage.promptTokens).toBe(expected);
    expect(await engine.measurePrompt?.(request).count?.()).toBe(expected);
    // The deprecated method, kept for a release.
    expect(engine.countPromptTokens?.(request)).toBe(expected);
    expect(countPromptTokens(request)).toBe(expected);
  });

  it('should report completion tokens as reasoning plus content, counted by the tokenizer', async () => {
    const events = await run(createRequest({ user: 'Why is the sky blue?', reasoning: true }));
    const reasoning = tokens(textOf(events, 'reasoning'));
    expect(finishOf(events).usage).toMatchObject({ reasoningTokens: reasoning, completionTokens: reasoning + tokens(textOf(events, 'content')) });
  });
});

describe('createReferenceEngine: abort', () => {
  it('should stop a paced generation when the signal aborts, throwing the reason without waiting for the next piece', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const paced = createReferenceEngine({ tokensPerSecond: 100 });
      const controller = new AbortController();
      const seen: ChatEngineEvent[] = [];
      const loop = (async () => {
        for await (const event of paced.generate(createRequest(), { signal: controller.signal, requestId: 'req_abort' })) {
          seen.push(event);
          if (seen.length === 3) controller.abort();
        }
      })();
      const outcome = loop.then(() => 'finished', (error: unknown) => error);
      // A piece every 10 ms: let three through, then no more time passes.
      while (seen.length < 3) await vi.advanceTimersByTimeAsync(10);
      expect(await outcome).toMatchObject({ name: 'AbortError' });
      expect(seen).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('should not wait out a long first-token delay once aborted', async () => {
    const paced = createReferenceEngine({ firstTokenDelayMs: 60_000 });
    const controller = new AbortController();
    const iterator = paced.generate(createRequest(), { signal: controller.signal, requestId: 'req_abort' })[Symbol.asyncIterator]();
    const pending = iterator.next();
    setTimeout(() => controller.abort(new Error('client left')), 10);
    await expect(pending).rejects.toThrow('client left');
  });

  it('should end at once when the consumer returns during a delay', async () => {
    const paced = createReferenceEngine({ firstTokenDelayMs: 60_000 });
    const iterator = paced.generate(createRequest(), context())[Symbol.asyncIterator]();
    const pending = iterator.next();
    await iterator.return?.();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
  });
});
