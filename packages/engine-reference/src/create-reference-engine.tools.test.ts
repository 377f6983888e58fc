import type { ChatEngineRequest } from '@quantum-chat/core';
import Ajv from 'ajv';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { calculatorTool, calendarTool, collect, createRequest, finishOf, searchTool, textOf, toolCallsOf, weatherTool } from '../test/request-fixtures.js';
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

  it('should answer in text, not call a tool, when its arguments do not fit the generation budget', async () => {
    const tree = { type: 'function' as const, function: { name: 'tree', parameters: { type: 'object', properties: { left: { $ref: '#' }, right: { $ref: '#' } }, required: ['left', 'right'] } } };
    const request = createRequest({ user: 'Grow the tree.', tools: [tree], toolChoice: 'required' });
    const events = await run(request);
    expect(toolCallsOf(events)).toEqual([]);
    expect(textOf(events, 'content')).toBe('I did not call the tool "tree": the arguments its schema requires are too large for the reference engine.');
    expect(finishOf(events).reason).toBe('stop');
    expect(finishOf(events).usage.completionTokens).toBe(tokens(textOf(events, 'content')));
    expect(await run(request)).toEqual(events);
  });
});
