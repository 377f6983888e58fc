import { describe, expect, it } from 'vitest';
import { isUpstreamChunk } from './upstream-chunk-check.js';
import { upstreamChunkSchema, upstreamErrorMessage } from './upstream-chunk-schema.js';

/** Chunks the schema accepts: the check must accept them too (the fast path). */
const valid: unknown[] = [
  {},
  { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
  { choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] },
  { choices: [{ delta: { reasoning_content: 'Hmm', reasoning: null, content: null } }] },
  { choices: [{ delta: {}, finish_reason: 'stop' }] },
  { choices: [], usage: { prompt_tokens: 52, completion_tokens: 20, total_tokens: 72 } },
  { choices: null, usage: null },
  { usage: { prompt_tokens: 1.5, completion_tokens: 0, completion_tokens_details: { reasoning_tokens: 3 } } },
  { usage: { completion_tokens_details: null } },
  { choices: [{ message: { role: 'assistant', content: 'Done', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'tool_calls' }] },
  { choices: [{ delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: { city: 'Paris' } } }] } }] },
  { choices: [{ delta: { tool_calls: [{ function: { arguments: 'x' } }, { index: null, id: null, type: null, function: null }] } }] },
  { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: {} } }] } }] },
  { choices: [{ delta: { tool_calls: null } }, { delta: null, message: null }] },
  { delta: 'Hmm.' },
  { choices: [{ delta: { content: 'x', extra: [1, 2] }, extra: true }], extra: { nested: 1 } },
];

/** Chunks the schema refuses: the check must refuse them, and the schema says why. */
const invalid: unknown[] = [
  null,
  undefined,
  42,
  'text',
  true,
  [],
  [1, 2],
  { choices: 'nope' },
  { choices: {} },
  { choices: [null] },
  { choices: [1] },
  { choices: [[]] },
  { choices: [{ delta: 'text' }] },
  { choices: [{ delta: [] }] },
  { choices: [{ message: 5 }] },
  { choices: [{ delta: { content: 5 } }] },
  { choices: [{ delta: { content: ['a'] } }] },
  { choices: [{ delta: { reasoning_content: {} } }] },
  { choices: [{ delta: { reasoning: false } }] },
  { choices: [{ finish_reason: 1 }] },
  { choices: [{ delta: { content: 'ok' } }, { delta: { content: 1 } }] },
  { choices: [{ delta: { tool_calls: {} } }] },
  { choices: [{ delta: { tool_calls: [null] } }] },
  { choices: [{ delta: { tool_calls: ['call'] } }] },
  { choices: [{ delta: { tool_calls: [{ index: -1 }] } }] },
  { choices: [{ delta: { tool_calls: [{ index: 0.5 }] } }] },
  { choices: [{ delta: { tool_calls: [{ index: '0' }] } }] },
  { choices: [{ delta: { tool_calls: [{ index: 2 ** 53 }] } }] },
  { choices: [{ delta: { tool_calls: [{ id: 7 }] } }] },
  { choices: [{ delta: { tool_calls: [{ type: 'tool' }] } }] },
  { choices: [{ delta: { tool_calls: [{ function: 'f' }] } }] },
  { choices: [{ delta: { tool_calls: [{ function: [] }] } }] },
  { choices: [{ delta: { tool_calls: [{ function: { name: 3 } }] } }] },
  { choices: [{ delta: { tool_calls: [{ function: { arguments: 3 } }] } }] },
  { choices: [{ delta: { tool_calls: [{ function: { arguments: ['a'] } }] } }] },
  { choices: [{ delta: { tool_calls: [{ function: { arguments: true } }] } }] },
  { usage: 5 },
  { usage: [] },
  { usage: { prompt_tokens: '52' } },
  { usage: { completion_tokens: {} } },
  { usage: { prompt_tokens: Number.NaN } },
  { usage: { completion_tokens: Number.POSITIVE_INFINITY } },
  { usage: { completion_tokens_details: 1 } },
  { usage: { completion_tokens_details: { reasoning_tokens: 'many' } } },
];

describe('isUpstreamChunk', () => {
  it.each(valid.map((value) => [JSON.stringify(value), value]))('should accept what the schema accepts: %s', (_name, value) => {
    expect(upstreamChunkSchema.safeParse(value).success).toBe(true);
    expect(isUpstreamChunk(value)).toBe(true);
  });

  it.each(invalid.map((value) => [String(JSON.stringify(value)), value]))('should refuse what the schema refuses: %s', (_name, value) => {
    expect(upstreamChunkSchema.safeParse(value).success).toBe(false);
    expect(isUpstreamChunk(value)).toBe(false);
  });

  it('should hand the chunk on as it is, with every field the mapper reads', () => {
    const chunk = { choices: [{ delta: { content: 'a', tool_calls: [{ index: 0, function: { arguments: { a: 1 } } }] }, finish_reason: 'stop' }], usage: { prompt_tokens: 1 } };
    expect(isUpstreamChunk(chunk)).toBe(true);
    expect(upstreamChunkSchema.parse(chunk)).toEqual(chunk);
  });

  it('should never accept what the schema refuses, over many random mutations of valid chunks', () => {
    // A small deterministic PRNG: the same cases every run.
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const oddValues: unknown[] = [null, undefined, 0, -1, 1.5, 2 ** 60, '', 'x', 'function', true, [], [1], {}, { a: 1 }, Number.NaN];
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
    /** Replaces one randomly chosen value somewhere in `value` (a deep copy) by an odd value. */
    function mutate(value: unknown): unknown {
      if (typeof value !== 'object' || value === null || random() < 0.2) return pick(oddValues);
      const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...value };
      const keys = Object.keys(copy);
      if (keys.length === 0) return pick(oddValues);
      const key = pick(keys);
      (copy as Record<string, unknown>)[key] = mutate((copy as Record<string, unknown>)[key]);
      return copy;
    }
    let disagreements = 0;
    for (let round = 0; round < 3000; round++) {
      const value = mutate(pick(valid));
      const schema = upstreamChunkSchema.safeParse(value).success;
      const check = isUpstreamChunk(value);
      if (check && !schema) throw new Error(`accepted what the schema refuses: ${JSON.stringify(value)}`);
      if (check !== schema) disagreements++;
    }
    // Stricter is allowed (the schema then decides), but the check should agree on all of these.
    expect(disagreements).toBe(0);
  });
});

describe('upstreamErrorMessage', () => {
  it.each([
    [{ error: { message: 'boom', code: 500 } }, 'boom'],
    [{ error: 'flat' }, 'flat'],
    [{ error: {} }, 'unknown error'],
    [{ object: 'error', message: 'vllm says no' }, 'vllm says no'],
    [{ object: 'error' }, 'unknown error'],
    [{ detail: 'Not Found' }, 'Not Found'],
  ])('should read the message of %j', (payload, message) => {
    expect(upstreamErrorMessage(payload)).toBe(message);
  });

  it.each([
    [{ choices: [{ delta: { content: 'Hi' } }] }],
    [{ object: 'chat.completion.chunk', choices: [] }],
    [{ error: null }],
    [{ error: 5 }],
    [{ detail: 5 }],
    [{ object: 'error', message: 5 }],
    [null],
    [undefined],
    ['error'],
    [[{ error: 'in an array' }]],
  ])('should find no error in %j', (payload) => {
    expect(upstreamErrorMessage(payload)).toBeUndefined();
  });
});
