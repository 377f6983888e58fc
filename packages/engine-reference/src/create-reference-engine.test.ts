import type { ChatEngineRequest } from '@quantum-chat/core';
import Ajv from 'ajv';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import {
  calculatorTool,
  calendarTool,
  collect,
  createRequest,
  finishOf,
  searchTool,
  textOf,
  toolCallsOf,
  weatherTool,
} from '../test/request-fixtures.js';
import { createReferenceEngine } from './create-reference-engine.js';

const engine = createReferenceEngine();
const context = () => ({ signal: new AbortController().signal, requestId: 'req_test' });
const run = (request: ChatEngineRequest) => collect(engine.generate(request, context()));
const ajv = new Ajv({ strict: false, logger: false });
const tokens = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

function expectValidArguments(request: ChatEngineRequest, calls: ReturnType<typeof toolCallsOf>): void {
  for (const call of calls) {
    const tool = request.tools.find((candidate) => candidate.function.name === call.name);
    expect(tool, call.name).toBeDefined();
    const schema = tool?.function.parameters ?? {};
    expect(ajv.validate(schema, JSON.parse(call.arguments)), `${call.name} ${call.arguments} ${JSON.stringify(ajv.errors)}`).toBe(true);
  }
}

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

describe('createReferenceEngine: tools', () => {
  const tools = [weatherTool, searchTool, calendarTool, calculatorTool];

  it('should call the matching tool for auto with schema-valid arguments in several fragments', async () => {
    const request = createRequest({ user: 'What is the weather like in San Francisco?', tools, toolChoice: 'auto' });
    const events = await run(request);
    const fragments = events.filter((event) => event.type === 'tool-call');
    expect(fragments[0]).toEqual({ type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '' });
    expect(fragments.length).toBeGreaterThan(3);
    expect(fragments.slice(1).every((fragment) => fragment.type === 'tool-call' && fragment.name === undefined)).toBe(true);
    expect(toolCallsOf(events)).toEqual([{ index: 0, name: 'get_weather', arguments: '{"location":"San Francisco"}' }]);
    expect(events.some((event) => event.type === 'content')).toBe(false);
    expect(finishOf(events).reason).toBe('tool_calls');
    expectValidArguments(request, toolCallsOf(events));
  });

  it('should answer in text for auto when no tool fits', async () => {
    const events = await run(createRequest({ user: 'Write me a haiku about autumn leaves.', tools, toolChoice: 'auto' }));
    expect(events.some((event) => event.type === 'tool-call')).toBe(false);
    expect(textOf(events, 'content')).toContain('nothing in your message called for one');
    expect(finishOf(events).reason).toBe('stop');
  });

  it('should never call a tool for none', async () => {
    const events = await run(createRequest({ user: 'What is the weather in Paris?', tools, toolChoice: 'none' }));
    expect(events.some((event) => event.type === 'tool-call')).toBe(false);
    expect(finishOf(events).reason).toBe('stop');
  });

  it('should call a tool for required, the first one when none fits', async () => {
    const fits = createRequest({ user: 'Schedule a budget meeting on 2025-06-02', tools, toolChoice: 'required', parallelToolCalls: false });
    const fitting = await run(fits);
    expect(toolCallsOf(fitting).map((call) => call.name)).toEqual(['create-calendar-event']);
    expectValidArguments(fits, toolCallsOf(fitting));
    const none = createRequest({ user: 'Write me a haiku', tools, toolChoice: 'required' });
    const first = await run(none);
    expect(toolCallsOf(first).map((call) => call.name)).toEqual(['get_weather']);
    expectValidArguments(none, toolCallsOf(first));
    expect(finishOf(first).reason).toBe('tool_calls');
  });

  it('should call the named tool for a named choice', async () => {
    const request = createRequest({ user: 'What is 19 * 21?', tools, toolChoice: { type: 'function', function: { name: 'calculator' } } });
    const events = await run(request);
    expect(toolCallsOf(events)).toEqual([{ index: 0, name: 'calculator', arguments: '{"expression":"19 * 21"}' }]);
  });

  it('should call several matching tools in parallel with distinct indexes', async () => {
    const request = createRequest({ user: 'Search the web for hiking trails and tell me the weather in Denver', tools, parallelToolCalls: true });
    const events = await run(request);
    const calls = toolCallsOf(events);
    expect(calls.map((call) => [call.index, call.name])).toEqual([
      [0, 'search_web'],
      [1, 'get_weather'],
    ]);
    expect(JSON.parse(calls[1]?.arguments ?? '')).toEqual({ location: 'Denver' });
    expectValidArguments(request, calls);
    // Each call's fragments are contiguous: all of call 0, then all of call 1.
    const order = events.flatMap((event) => (event.type === 'tool-call' ? [event.index] : []));
    expect(order).toEqual([...order].sort((left, right) => left - right));

    const single = toolCallsOf(await run({ ...request, parallelToolCalls: false }));
    expect(single.map((call) => call.name)).toEqual(['search_web']);
  });

  it('should count tool names and arguments as completion tokens', async () => {
    const request = createRequest({ user: 'Weather in Rome?', tools, reasoning: true });
    const events = await run(request);
    const [call] = toolCallsOf(events);
    const { usage } = finishOf(events);
    expect(usage.completionTokens).toBe(tokens(textOf(events, 'reasoning')) + tokens(call?.name ?? '') + tokens(call?.arguments ?? ''));
  });

  it('should answer from the tool result once the last message is one', async () => {
    const request = createRequest({
      tools,
      toolChoice: 'required',
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } }] },
        { role: 'tool', toolCallId: 'call_1', content: '{"temperature":-3,"condition":"Snow"}' },
      ],
    });
    const events = await run(request);
    const text = textOf(events, 'content');
    expect(events.some((event) => event.type === 'tool-call')).toBe(false);
    expect(text).toContain('get_weather');
    expect(text).toContain('temperature is -3 and condition is Snow');
    expect(finishOf(events).reason).toBe('stop');
  });

  it('should report every result of parallel calls', async () => {
    const request = createRequest({
      tools,
      messages: [
        { role: 'user', content: 'Search for trails and the weather in Denver' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: 'call_a', type: 'function', function: { name: 'search_web', arguments: '{"query":"trails"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Denver"}' } },
          ],
        },
        { role: 'tool', toolCallId: 'call_a', content: 'Bear Peak Trail, Mount Sanitas' },
        { role: 'tool', toolCallId: 'call_b', content: '[{"hour":9,"temp":12},{"hour":10,"temp":14}]' },
      ],
    });
    const text = textOf(await run(request), 'content');
    expect(text).toContain('I called search_web and get_weather');
    expect(text).toContain('"Bear Peak Trail, Mount Sanitas"');
    expect(text).toContain('a list of 2 items');
  });
});
