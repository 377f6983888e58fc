import type { ChatEngineEvent, ChatEngineRequest, EngineResponseFormat } from '@quantum-chat/core';
import Ajv from 'ajv';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { collect, createRequest, finishOf, textOf, weatherTool } from '../test/request-fixtures.js';
import { createReferenceEngine } from './create-reference-engine.js';

const ajv = new Ajv({ strict: false, logger: false });
const engine = createReferenceEngine();
const context = () => ({ signal: new AbortController().signal, requestId: 'req_test' });
const run = (request: ChatEngineRequest) => collect(engine.generate(request, context()));
const jsonSchema = (schema: Record<string, unknown>, name = 'answer'): EngineResponseFormat => ({ type: 'json_schema', json_schema: { name, schema } });
const contentEvents = (events: ChatEngineEvent[]) => events.filter((event): event is Extract<ChatEngineEvent, { type: 'content' }> => event.type === 'content');

const place = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    country: { type: 'string', enum: ['France', 'Japan', 'Norway'] },
    population: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
  },
  required: ['city', 'country', 'population', 'tags'],
  additionalProperties: false,
};

describe('createReferenceEngine: response_format', () => {
  it('should answer json_object with a JSON object holding the text it would have written', async () => {
    const plain = textOf(await run(createRequest({ user: 'What is 6 * 7?' })), 'content');
    const events = await run(createRequest({ user: 'What is 6 * 7?', responseFormat: { type: 'json_object' } }));
    const parsed = JSON.parse(textOf(events, 'content')) as unknown;
    expect(parsed).toEqual({ answer: plain });
    expect(finishOf(events).reason).toBe('stop');
  });

  it('should answer json_schema with a value valid against the schema, filled from the message', async () => {
    const events = await run(createRequest({ user: 'Tell me about life in Tokyo, Japan.', responseFormat: jsonSchema(place) }));
    const value = JSON.parse(textOf(events, 'content')) as Record<string, unknown>;
    expect(ajv.validate(place, value), JSON.stringify(ajv.errors)).toBe(true);
    expect(value).toMatchObject({ city: 'Tokyo', country: 'Japan' });
  });

  it('should count the JSON as completion tokens, and stream it as pieces that join to it', async () => {
    const events = await run(createRequest({ user: 'Where is Oslo?', responseFormat: jsonSchema(place) }));
    const text = textOf(events, 'content');
    expect(contentEvents(events).length).toBeGreaterThan(1);
    expect(finishOf(events).usage.completionTokens).toBe(countTokens(text));
  });

  it('should write reasoning first and then the JSON for a reasoning model', async () => {
    const events = await run(createRequest({ user: 'Where is Oslo?', reasoning: true, responseFormat: { type: 'json_object' } }));
    expect(textOf(events, 'reasoning')).not.toBe('');
    expect(() => JSON.parse(textOf(events, 'content'))).not.toThrow();
  });

  it('should still call a tool the request forces, and answer in JSON once the tool result is in', async () => {
    const forced = await run(createRequest({ user: 'Weather in Paris?', tools: [weatherTool], toolChoice: 'required', responseFormat: { type: 'json_object' } }));
    expect(finishOf(forced).reason).toBe('tool_calls');
    const answered = await run(
      createRequest({
        responseFormat: { type: 'json_object' },
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }] },
          { role: 'tool', content: '{"sky":"clear","celsius":21}', toolCallId: 'call_1' },
        ],
      }),
    );
    expect(JSON.parse(textOf(answered, 'content'))).toHaveProperty('answer');
  });

  it('should be valid for any schema of a generated family (objects, arrays, enums, bounds, nesting)', async () => {
    const leaf = fc.oneof(
      fc.constant({ type: 'string' }),
      fc.record({ type: fc.constant('string'), minLength: fc.integer({ min: 0, max: 8 }), maxLength: fc.constant(40) }),
      fc.record({ type: fc.constant('integer'), minimum: fc.integer({ min: -5, max: 5 }), maximum: fc.constant(100) }),
      fc.record({ type: fc.constant('number'), exclusiveMinimum: fc.constant(0) }),
      fc.constant({ type: 'boolean' }),
      fc.constant({ type: 'null' }),
      fc.record({ enum: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }) }),
      fc.constant({ type: 'string', format: 'date' }),
      fc.constant({ type: 'string', format: 'email' }),
    );
    const { schema } = fc.letrec((tie) => ({
      schema: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.record({ type: fc.constant('array'), items: tie('schema'), minItems: fc.integer({ min: 0, max: 3 }) }),
        fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), tie('schema'), { maxKeys: 4 }).map((properties) => ({
          type: 'object',
          properties,
          required: Object.keys(properties),
          additionalProperties: false,
        })),
      ),
    }));
    await fc.assert(
      fc.asyncProperty(schema, fc.string({ maxLength: 60 }), async (generated, user) => {
        const root = { type: 'object', properties: { value: generated }, required: ['value'], additionalProperties: false };
        const events = await run(createRequest({ user: user || 'hi', responseFormat: jsonSchema(root) }));
        const value = JSON.parse(textOf(events, 'content')) as unknown;
        expect(ajv.validate(root, value), JSON.stringify(ajv.errors)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('should refuse, before any event, a schema whose smallest value is too large to build', async () => {
    const huge = { type: 'object', properties: { a: { type: 'string', minLength: 100_000 } }, required: ['a'] };
    await expect(run(createRequest({ responseFormat: jsonSchema(huge) }))).rejects.toMatchObject({ code: 'invalid_value', param: 'response_format.json_schema.schema' });
  });
});

describe('createReferenceEngine: logprobs', () => {
  it('should give every content piece the log probability of its token, the same every time', async () => {
    const request = createRequest({ user: 'Hello there!', logprobs: { topLogprobs: 3 } });
    const events = await run(request);
    expect(await run(request)).toEqual(events);
    for (const event of contentEvents(events)) {
      expect(event.logprobs).toHaveLength(1);
      const [scored] = event.logprobs!;
      expect(scored!.token).toBe(event.text);
      expect(scored!.bytes).toEqual([...new TextEncoder().encode(event.text)]);
      expect(scored!.logprob).toBeLessThan(0);
      expect(scored!.top_logprobs).toHaveLength(3);
      expect(scored!.top_logprobs[0]).toEqual({ token: event.text, logprob: scored!.logprob, bytes: scored!.bytes });
      const probabilities = scored!.top_logprobs.map((entry) => Math.exp(entry.logprob));
      expect(probabilities.reduce((sum, probability) => sum + probability, 0)).toBeLessThanOrEqual(1);
      expect([...probabilities].sort((a, b) => b - a)).toEqual(probabilities);
    }
  });

  it('should not change the text, and add nothing when logprobs were not asked for', async () => {
    const plain = await run(createRequest({ user: 'Hello there!' }));
    const scored = await run(createRequest({ user: 'Hello there!', logprobs: { topLogprobs: 0 } }));
    expect(textOf(scored, 'content')).toBe(textOf(plain, 'content'));
    expect(contentEvents(plain).every((event) => event.logprobs === undefined)).toBe(true);
    expect(contentEvents(scored).every((event) => event.logprobs?.[0]?.top_logprobs.length === 0)).toBe(true);
  });

  it('should score up to 20 alternatives', async () => {
    const events = await run(createRequest({ user: 'Hi', logprobs: { topLogprobs: 20 } }));
    expect(contentEvents(events)[0]!.logprobs![0]!.top_logprobs).toHaveLength(20);
  });
});
