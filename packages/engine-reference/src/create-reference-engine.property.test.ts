import type { ChatEngineRequest } from '@quantum-chat/core';
import Ajv from 'ajv';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { calendarTool, calculatorTool, collect, createRequest, finishOf, searchTool, textOf, toolCallsOf, weatherTool } from '../test/request-fixtures.js';
import { createReferenceEngine } from './create-reference-engine.js';

const engine = createReferenceEngine();
const run = (request: ChatEngineRequest) => collect(engine.generate(request, { signal: new AbortController().signal, requestId: 'req_property' }));
const tokens = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
const ajv = new Ajv({ strict: false, logger: false });

/** User text: plain words, arithmetic, unicode of every kind, and special-token look-alikes. */
const userText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.array(fc.constantFrom('what', 'is', '2', '+', '17', '*', 'weather', 'in', 'Paris', 'search', 'for', '日本', '🎉', '<|endoftext|>', '\n', '?'), { maxLength: 30 }).map((words) => words.join(' ')),
);

describe('createReferenceEngine properties', () => {
  it('should keep completion tokens within maxTokens, and the text re-tokenizes to exactly what usage says', async () => {
    await fc.assert(
      fc.asyncProperty(userText, fc.integer({ min: 1, max: 300 }), fc.boolean(), fc.option(fc.integer(), { nil: undefined }), async (user, maxTokens, reasoning, seed) => {
        const events = await run(createRequest({ user, maxTokens, reasoning, seed }));
        const content = textOf(events, 'content');
        const trace = textOf(events, 'reasoning');
        const { usage, reason } = finishOf(events);
        expect(usage.completionTokens).toBeLessThanOrEqual(maxTokens);
        expect(tokens(content)).toBeLessThanOrEqual(maxTokens - usage.reasoningTokens);
        expect(usage.reasoningTokens).toBe(tokens(trace));
        expect(usage.completionTokens).toBe(tokens(trace) + tokens(content));
        expect(reason === 'length' || reason === 'stop').toBe(true);
        if (reason === 'length') expect(usage.completionTokens).toBeGreaterThan(maxTokens - 4);
      }),
      { numRuns: 150 },
    );
  }, 30_000);

  it('should give identical events for identical requests', async () => {
    await fc.assert(
      fc.asyncProperty(userText, fc.double({ min: 0, max: 2, noNaN: true }), fc.boolean(), async (user, temperature, reasoning) => {
        const request = createRequest({ user, temperature, reasoning, tools: [weatherTool, searchTool] });
        expect(JSON.stringify(await run(request))).toBe(JSON.stringify(await run(structuredClone(request))));
      }),
      { numRuns: 60 },
    );
  }, 30_000);

  it('should always produce schema-valid arguments for required tool calls', async () => {
    const tools = [weatherTool, searchTool, calendarTool, calculatorTool];
    await fc.assert(
      fc.asyncProperty(userText, fc.boolean(), async (user, parallelToolCalls) => {
        const request = createRequest({ user, tools, toolChoice: 'required', parallelToolCalls });
        const events = await run(request);
        expect(finishOf(events).reason).toBe('tool_calls');
        const calls = toolCallsOf(events);
        expect(calls.length).toBeGreaterThan(0);
        calls.forEach((call, index) => expect(call.index).toBe(index));
        for (const call of calls) {
          const schema = tools.find((tool) => tool.function.name === call.name)?.function.parameters ?? {};
          expect(ajv.validate(schema, JSON.parse(call.arguments)), `${call.name} ${call.arguments}`).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  }, 30_000);
});
