import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QuantumChatError } from '../../errors/quantum-chat-error.js';
import { readPlainMessageItem, readPlainResponseFields } from './read-plain-response-request.js';
import { readInputItemWithSchema, readResponseFieldsWithSchema } from './validate-create-response.js';

/** The schema path's value, or the error it words. */
function throughSchema<T>(read: () => T): { value: T } | { error: QuantumChatError } {
  try {
    return { value: read() };
  } catch (error) {
    if (!QuantumChatError.isInstance(error)) throw error;
    return { error };
  }
}

/** How often each way was taken: a property whose inputs all took one way would prove little. */
let taken = { plain: 0, schemaAccepted: 0, refused: 0 };
function tally(fast: unknown, slow: { value: unknown } | { error: unknown }): void {
  if (fast !== undefined) taken.plain++;
  else if ('value' in slow) taken.schemaAccepted++;
  else taken.refused++;
}
function expectBothPaths(): void {
  const total = taken.plain + taken.schemaAccepted + taken.refused;
  expect(Object.values(taken).map((count) => count > total / 50), JSON.stringify(taken)).toEqual([true, true, true]);
  taken = { plain: 0, schemaAccepted: 0, refused: 0 };
}

const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', 'x'.repeat(256), 'x'.repeat(257), 'é😀'.repeat(90)));
const anyScalar = fc.oneof(
  fc.boolean(),
  text,
  fc.integer({ min: -20_000, max: 20_000 }),
  fc.double({ min: -3, max: 3, noNaN: true }),
  fc.constantFrom(0, 1, 2, 8192, 8193, 20, 21, 2 ** 53, 1.5, -0, Number.NaN, Number.POSITIVE_INFINITY),
  fc.constantFrom('none', 'auto', 'required', 'any'),
  fc.constant([]),
  fc.constant({}),
  fc.constantFrom({ type: 'function', name: 'f' }, { format: { type: 'text' } }, { effort: 'low' }, { k: 'v' }),
);
/** Mostly a value the rule takes, now and then one just off it. */
const near = <T, U>(valid: fc.Arbitrary<T>, off: fc.Arbitrary<U>) => fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: off });
const shortText = fc.string({ maxLength: 20 });
const offText = fc.constantFrom('', 'x'.repeat(257), 3);
const offBoolean = fc.constantFrom('true', 0);
/** Each field's values near its rules (or, for the object fields, a plain object), by name. */
const nearRules = {
  model: shortText,
  instructions: near(shortText, fc.constant(4)),
  tool_choice: near(fc.constantFrom('none', 'auto', 'required'), fc.constantFrom('any', { type: 'function', name: 'f' })),
  parallel_tool_calls: near(fc.boolean(), offBoolean),
  text: fc.constantFrom({ format: { type: 'text' } }, {}),
  reasoning: fc.constantFrom({ effort: 'low' }, {}),
  max_output_tokens: near(fc.integer({ min: 1, max: 8192 }), fc.constantFrom(0, 8193, 1.5, '256')),
  temperature: near(fc.double({ min: 0, max: 2, noNaN: true }), fc.constantFrom(-0.01, 2.01, '1')),
  top_p: near(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(-0.01, 1.01)),
  top_logprobs: near(fc.integer({ min: 0, max: 20 }), fc.constantFrom(21, -1, 2.5)),
  include: fc.constantFrom(['message.output_text.logprobs'], []),
  stream: near(fc.boolean(), offBoolean),
  store: near(fc.boolean(), offBoolean),
  previous_response_id: near(fc.string({ minLength: 1, maxLength: 20 }), offText),
  background: near(fc.boolean(), offBoolean),
  metadata: fc.constantFrom({}, { k: 'v' }),
  user: near(fc.oneof(shortText, fc.constant('u'.repeat(256))), offText),
};
const plainFieldNames = ['instructions', 'tool_choice', 'parallel_tool_calls', 'max_output_tokens', 'temperature', 'top_p', 'top_logprobs', 'stream', 'store', 'previous_response_id', 'background', 'user'] as const;
const fieldValues = fc.oneof(
  // The scalar fields alone, near their rules.
  fc.record(Object.fromEntries(plainFieldNames.map((name) => [name, nearRules[name]])), { requiredKeys: [] }),
  // Any field, any value now and then.
  fc.record(Object.fromEntries(Object.entries(nearRules).map(([name, values]) => [name, fc.oneof({ weight: 6, arbitrary: values }, anyScalar)])), { requiredKeys: [] }),
);

const part = fc.oneof(
  fc.record({ type: fc.constantFrom('input_text', 'output_text', 'input_image', 'text'), text: fc.oneof(text, fc.integer()) }),
  fc.record({ type: fc.constantFrom('input_text', 'output_text'), text, annotations: fc.constantFrom([], null) }, { requiredKeys: ['type', 'text'] }),
  fc.constantFrom(null, 'hi', [], { type: 'output_text' }),
);
const wildItem = fc.record(
  {
    type: fc.constantFrom('message', undefined, null, 'function_call', 'item_reference', 3),
    id: fc.oneof(text, fc.constantFrom(null, 7)),
    role: fc.constantFrom('user', 'system', 'developer', 'assistant', 'tool', null, 1),
    content: fc.oneof(text, fc.array(part, { maxLength: 3 }), fc.constantFrom(null, 5, {})),
    status: fc.oneof(text, fc.constantFrom(null, 0, 'completed')),
    name: fc.string({ maxLength: 3 }),
    call_id: fc.string({ maxLength: 3 }),
  },
  { requiredKeys: [] },
);
/** Items as clients send them, with one field now and then off its rule. */
const likelyItem = fc.record(
  {
    type: fc.constantFrom('message', undefined),
    id: fc.constantFrom(undefined, 'msg_1', 'x'.repeat(257)),
    role: fc.constantFrom('user', 'system', 'developer', 'assistant', 'tool'),
    content: fc.oneof(text, fc.array(fc.record({ type: fc.constantFrom('input_text', 'output_text'), text }), { maxLength: 3 }), fc.array(part, { maxLength: 2 })),
    status: fc.constantFrom(undefined, 'completed', null),
  },
  { requiredKeys: ['role', 'content'] },
).map((item) => Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined)));
const messageLike = fc.oneof(likelyItem, wildItem);

describe('readPlainResponseFields', () => {
  it('gives what the schema gives, or leaves the fields to the schema (which words every error)', () => {
    fc.assert(
      // `model` is always there: its absence is answered before this check runs.
      fc.property(fieldValues, fc.oneof(text, anyScalar), (values, model) => {
        const fields: Record<string, unknown> = { ...values, model };
        const fast = readPlainResponseFields(fields);
        const slow = throughSchema(() => readResponseFieldsWithSchema(fields));
        tally(fast, slow);
        if (fast !== undefined) expect(slow).toStrictEqual({ value: fast });
        if ('error' in slow) expect(fast).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
    expectBothPaths();
  });

  it('takes what SDKs send without the schema', () => {
    const fields = { model: 'quantum-flash', instructions: 'Be brief.', temperature: 0.7, top_p: 1, max_output_tokens: 256, user: 'u', stream: false, store: false, tool_choice: 'auto' };
    expect(readPlainResponseFields(fields)).toBe(fields);
    expect(readPlainResponseFields({ model: 'm', text: { format: { type: 'text' } } })).toBeUndefined();
    expect(readPlainResponseFields({ model: 'm', max_output_tokens: 8193 })).toBeUndefined();
  });
});

describe('readPlainMessageItem', () => {
  it('gives what the item schema gives, or leaves the item to the schema (which words every error)', () => {
    fc.assert(
      fc.property(messageLike, (item) => {
        const fast = readPlainMessageItem(item);
        const slow = throughSchema(() => readInputItemWithSchema(item, 0));
        tally(fast, slow);
        if (fast !== undefined) expect(slow).toStrictEqual({ value: fast });
        if ('error' in slow) expect(fast).toBeUndefined();
      }),
      { numRuns: 5000 },
    );
    expectBothPaths();
  });

  it('takes string content and plain text parts, leaves the rest to the schema', () => {
    expect(readPlainMessageItem({ role: 'user', content: 'Hi' })).toEqual({ role: 'user', content: 'Hi', type: 'message' });
    const parts = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }], id: 'msg_1' };
    expect(readPlainMessageItem(parts)).toEqual(parts);
    expect(readPlainMessageItem({ role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [] }] })).toBeUndefined();
    expect(readPlainMessageItem({ role: 'user', content: 'Hi', extra: 1 })).toBeUndefined();
    expect(readPlainMessageItem({ type: 'function_call', role: 'user', content: 'Hi' })).toBeUndefined();
  });
});
