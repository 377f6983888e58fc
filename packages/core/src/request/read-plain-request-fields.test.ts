import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatCompletionRequestSchema } from '../schemas/chat-completion-request.js';
import { readPlainRequestFields } from './read-plain-request-fields.js';

const fieldsSchema = chatCompletionRequestSchema.omit({ messages: true });

const anyScalar = fc.oneof(
  fc.boolean(),
  fc.string({ maxLength: 300 }),
  fc.integer({ min: -20_000, max: 20_000 }),
  fc.double({ min: -3, max: 3, noNaN: true }),
  fc.constantFrom(0, 1, 2, 8192, 8193, 2 ** 53, -(2 ** 53), 1.5, -0),
  fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxLength: 6 }),
  fc.constant({}),
  fc.constantFrom(20, 21, -2, -2.5, 'low', 'medium', 'high', 'minimal'),
  fc.constantFrom({ type: 'text' }, { type: 'json_object' }, { type: 'json_schema' }, { type: 'text', extra: 1 }, { type: 'xml' }, { 0: 'text' }),
  fc.record({ include_usage: fc.constantFrom(true, false, null, 1, 'yes'), resumable: fc.constantFrom(true, false, null, 0), other: fc.constantFrom(true, 'x') }, { requiredKeys: [] }),
);
const fieldNames = [
  'model', 'stream', 'temperature', 'max_tokens', 'max_completion_tokens', 'top_p', 'stop', 'seed', 'user', 'n', 'parallel_tool_calls', 'metadata', 'tools',
  'logprobs', 'top_logprobs', 'presence_penalty', 'frequency_penalty', 'reasoning_effort', 'response_format', 'logit_bias', 'stream_options',
];

describe('readPlainRequestFields', () => {
  it('accepts exactly what the schema accepts, or leaves the request to the schema', () => {
    fc.assert(
      // `model` is always there: its absence is answered before this check runs.
      fc.property(fc.dictionary(fc.constantFrom(...fieldNames), anyScalar, { maxKeys: 8 }), fc.oneof(fc.string(), anyScalar), (fields, model) => {
        const known = { ...fields, model };
        const fast = readPlainRequestFields(known);
        const parsed = fieldsSchema.safeParse(known);
        // Whatever the fast path accepts, the schema accepts with the same value.
        if (fast !== undefined) expect(parsed).toEqual({ success: true, data: fast });
        // The fast path only passes requests on; it never words an error itself.
        if (!parsed.success) expect(fast).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the common request without the schema', () => {
    const known = { model: 'quantum-flash', messages: [], temperature: 0.7, max_tokens: 256, user: 'u-1', stream: false, stop: ['\n'] };
    expect(readPlainRequestFields(known)).toBe(known);
    const structured = { model: 'm', response_format: { type: 'json_object' }, logprobs: true, top_logprobs: 3, presence_penalty: -1, reasoning_effort: 'low' };
    expect(readPlainRequestFields(structured)).toBe(structured);
    const streamed = { model: 'm', stream: true, stream_options: { include_usage: true, resumable: null } };
    expect(readPlainRequestFields(streamed)).toBe(streamed);
  });

  it('leaves object fields and out-of-range values to the schema', () => {
    expect(readPlainRequestFields({ model: 'm', stream_options: { include_usage: true, other: 1 } })).toBeUndefined();
    expect(readPlainRequestFields({ model: 'm', stream_options: { include_usage: 'yes' } })).toBeUndefined();
    expect(readPlainRequestFields({ model: 'm', tools: [] })).toBeUndefined();
    expect(readPlainRequestFields({ model: 'm', max_tokens: 8193 })).toBeUndefined();
    expect(readPlainRequestFields({ model: 'm', temperature: 2.01 })).toBeUndefined();
    expect(readPlainRequestFields({ model: 'm', user: 'x'.repeat(257) })).toBeUndefined();
    expect(readPlainRequestFields({ model: 'm', stop: ['a', 'b', 'c', 'd', 'e'] })).toBeUndefined();
    expect(readPlainRequestFields({ model: 'm', response_format: { type: 'json_schema', json_schema: { name: 'x', schema: {} } } })).toBeUndefined();
    expect(readPlainRequestFields({ model: 'm', logit_bias: { '1': 5 } })).toBeUndefined();
    expect(readPlainRequestFields({ model: 'm', top_logprobs: 21 })).toBeUndefined();
  });
});
