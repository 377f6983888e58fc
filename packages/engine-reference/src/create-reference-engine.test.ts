import type { ChatEngineRequest } from '@quantum-chat/core';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { collect, createRequest, finishOf, searchTool, textOf, weatherTool } from '../test/request-fixtures.js';
import { createReferenceEngine } from './create-reference-engine.js';

const engine = createReferenceEngine();
const context = () => ({ signal: new AbortController().signal, requestId: 'req_test' });
const run = (request: ChatEngineRequest) => collect(engine.generate(request, context()));
const tokens = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

describe('createReferenceEngine: answers', () => {
  it('should give the same events twice for the same request, from any engine instance', async () => {
    const request = createRequest({ user: 'What is 17 * 3? Also, what do you think of Lisbon?', reasoning: true, seed: 7 });
    const first = await run(request);
    expect(await run(request)).toEqual(first);
    expect(JSON.stringify(await collect(createReferenceEngine().generate(request, context())))).toBe(JSON.stringify(first));
  });

  it('should give the same events paced and unpaced (streamed or not)', async () => {
    const request = createRequest({ user: 'Hello! How are you today?' });
    const paced = createReferenceEngine({ firstTokenDelayMs: 1, tokensPerSecond: 5000 });
    expect(await collect(paced.generate(request, context()))).toEqual(await run(request));
  });

  it('should vary the wording with the seed but not the facts, and not at temperature 0', async () => {
    const texts = new Set<string>();
    const coldTexts = new Set<string>();
    for (let seed = 0; seed < 12; seed++) {
      const text = textOf(await run(createRequest({ user: 'what is 2+2?', seed })), 'content');
      expect(text).toContain('2 + 2');
      expect(text).toMatch(/\b4\b/u);
      texts.add(text);
      coldTexts.add(textOf(await run(createRequest({ user: 'what is 2+2?', seed, temperature: 0 })), 'content'));
    }
    expect(texts.size).toBeGreaterThan(1);
    expect(coldTexts.size).toBe(1);
  });

  it('should answer an open request in several sentences of roughly 60 to 150 tokens that echo it', async () => {
    const events = await run(createRequest({ user: 'Tell me about the history of the Roman empire.' }));
    const text = textOf(events, 'content');
    expect(tokens(text)).toBeGreaterThanOrEqual(60);
    expect(tokens(text)).toBeLessThanOrEqual(150);
    expect(text.split(/[.!?]\s/u).length).toBeGreaterThanOrEqual(4);
    expect(text).toContain('Tell me about the history of the Roman empire.');
    expect(text).toMatch(/"history", "Roman" and "empire"/u);
    expect(text).toMatch(/9 words/u);
    expect(text).toMatch(/not a language model|rather than a language model|instead of generating it with a language model/u);
    expect(finishOf(events).reason).toBe('stop');
  });

  it('should stream the answer in small pieces, about a token each', async () => {
    const events = await run(createRequest());
    const pieces = events.filter((event) => event.type === 'content');
    expect(pieces.length).toBe(tokens(textOf(events, 'content')));
    for (const piece of pieces) expect(piece.type === 'content' && piece.text.length).toBeLessThanOrEqual(20);
  });

  it('should answer simple arithmetic correctly', async () => {
    const text = textOf(await run(createRequest({ user: 'What is (12 + 30) / 6?', temperature: 0 })), 'content');
    expect(text).toContain('The answer is 7: (12 + 30) / 6 = 7.');
  });

  it('should keep multibyte text intact in every piece', async () => {
    const events = await run(createRequest({ user: 'Qu’est-ce que «café» 日本語 🎉👨‍👩‍👧 veut dire ?' }));
    for (const event of events) if (event.type === 'content') expect(event.text).not.toContain('\uFFFD');
    expect(textOf(events, 'content')).toContain('日本語 🎉👨‍👩‍👧');
  });

  it('should say what it can do when there is no user message', async () => {
    const events = await run(createRequest({ messages: [{ role: 'system', content: 'Be brief.' }] }));
    expect(textOf(events, 'content')).toMatch(/did not find a user message/u);
    expect(finishOf(events).reason).toBe('stop');
  });
});

describe('createReferenceEngine: reasoning', () => {
  it('should emit a reasoning trace before the answer only when reasoning is requested', async () => {
    const request = createRequest({ user: 'What is 6 * 7?', model: 'quantum-reasoner', reasoning: true, tools: [weatherTool], toolChoice: 'auto' });
    const events = await run(request);
    const firstContent = events.findIndex((event) => event.type === 'content');
    const lastReasoning = events.map((event) => event.type).lastIndexOf('reasoning');
    expect(lastReasoning).toBeGreaterThanOrEqual(0);
    expect(lastReasoning).toBeLessThan(firstContent);
    const trace = textOf(events, 'reasoning');
    expect(trace).toContain('"What is 6 * 7?"');
    expect(trace).toContain('Available tools: get_weather');
    expect(trace).toContain('gives 42');
    expect(trace.split('\n').length).toBeGreaterThanOrEqual(4);
    expect(finishOf(events).usage.reasoningTokens).toBe(tokens(trace));

    const plain = await run({ ...request, reasoning: false });
    expect(plain.some((event) => event.type === 'reasoning')).toBe(false);
    expect(finishOf(plain).usage.reasoningTokens).toBe(0);
  });

  it('should say in the trace which tool it will call and with what arguments', async () => {
    const request = createRequest({ user: 'Weather in Madrid?', reasoning: true, tools: [weatherTool, searchTool] });
    const trace = textOf(await run(request), 'reasoning');
    expect(trace).toContain('I will call get_weather with {"location":"Madrid"}');
  });
});
