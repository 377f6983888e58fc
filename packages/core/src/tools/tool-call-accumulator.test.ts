import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCall, ToolCallDelta } from '../schemas/tool-call.js';
import { createToolCallAccumulator } from './tool-call-accumulator.js';

function accumulate(deltas: readonly ToolCallDelta[]): ToolCall[] {
  const accumulator = createToolCallAccumulator({ generateId: sequentialIds() });
  accumulator.addAll(deltas);
  return accumulator.calls();
}

function sequentialIds(): () => string {
  let counter = 0;
  return () => `generated_${++counter}`;
}

function call(id: string, name: string, args: string): ToolCall {
  return { id, type: 'function', function: { name, arguments: args } };
}

describe('createToolCallAccumulator', () => {
  describe('dialects', () => {
    it('should merge OpenAI-style fragments: id and name first, then arguments by index', () => {
      expect(
        accumulate([
          { index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } },
          { index: 0, function: { arguments: '{"city"' } },
          { index: 0, function: { arguments: ':"Oslo"}' } },
        ]),
      ).toEqual([call('call_a', 'get_weather', '{"city":"Oslo"}')]);
    });

    it('should merge fragments that repeat the id (and name) on every delta', () => {
      expect(
        accumulate([
          { id: 'call_a', type: 'function', function: { name: 'search', arguments: '{"q":' } },
          { id: 'call_a', type: 'function', function: { name: 'search', arguments: '"tea"' } },
          { id: 'call_a', type: 'function', function: { name: 'search', arguments: '}' } },
        ]),
      ).toEqual([call('call_a', 'search', '{"q":"tea"}')]);
    });

    it('should take a whole call sent in one delta', () => {
      expect(accumulate([{ index: 0, id: 'call_a', type: 'function', function: { name: 'now', arguments: '{}' } }])).toEqual([
        call('call_a', 'now', '{}'),
      ]);
    });

    it('should send fragments with neither id nor index to the call of the previous fragment', () => {
      expect(
        accumulate([
          { id: 'call_a', function: { name: 'first', arguments: '{"a":' } },
          { function: { arguments: '1}' } },
          { id: 'call_b', function: { name: 'second', arguments: '{"b":' } },
          { function: { arguments: '2}' } },
        ]),
      ).toEqual([call('call_a', 'first', '{"a":1}'), call('call_b', 'second', '{"b":2}')]);
    });

    it('should make two calls of two named fragments with neither id nor index', () => {
      expect(
        accumulate([
          { function: { name: 'get_time', arguments: '{"city":"Tokyo"}' } },
          { function: { name: 'get_time', arguments: '{"city":"Oslo"}' } },
        ]),
      ).toEqual([call('generated_1', 'get_time', '{"city":"Tokyo"}'), call('generated_2', 'get_time', '{"city":"Oslo"}')]);
    });

    it('should keep appending a name repeated on every fragment while the arguments are incomplete', () => {
      expect(
        accumulate([
          { function: { name: 'get_time', arguments: '{"city":' } },
          { function: { name: 'get_time', arguments: '"Tokyo"}' } },
          { function: { name: 'get_time', arguments: '{"city":"Oslo"}' } },
        ]),
      ).toEqual([call('generated_1', 'get_time', '{"city":"Tokyo"}'), call('generated_2', 'get_time', '{"city":"Oslo"}')]);
    });

    it('should serialise arguments sent as an object', () => {
      expect(accumulate([{ function: { name: 'lookup', arguments: { city: 'Oslo', days: 3 } } }])).toEqual([
        call('generated_1', 'lookup', '{"city":"Oslo","days":3}'),
      ]);
    });

    it('should keep parallel calls apart by index, interleaved', () => {
      expect(
        accumulate([
          { index: 0, id: 'call_a', type: 'function', function: { name: 'a', arguments: '' } },
          { index: 1, id: 'call_b', type: 'function', function: { name: 'b', arguments: '' } },
          { index: 1, function: { arguments: '{"y":' } },
          { index: 0, function: { arguments: '{"x":' } },
          { index: 0, function: { arguments: '1}' } },
          { index: 1, function: { arguments: '2}' } },
        ]),
      ).toEqual([call('call_a', 'a', '{"x":1}'), call('call_b', 'b', '{"y":2}')]);
    });

    it('should keep parallel calls apart by id when every call comes at index 0', () => {
      expect(
        accumulate([
          { index: 0, id: 'call_a', type: 'function', function: { name: 'a', arguments: '{"x"' } },
          { index: 0, function: { arguments: ':1}' } },
          { index: 0, id: 'call_b', type: 'function', function: { name: 'b', arguments: '{"y"' } },
          { index: 0, function: { arguments: ':2}' } },
        ]),
      ).toEqual([call('call_a', 'a', '{"x":1}'), call('call_b', 'b', '{"y":2}')]);
    });

    it('should go back to an earlier call when its id comes again', () => {
      expect(
        accumulate([
          { index: 0, id: 'call_a', function: { name: 'a', arguments: '{"x"' } },
          { index: 0, id: 'call_b', function: { name: 'b', arguments: '{"y"' } },
          { index: 0, id: 'call_a', function: { arguments: ':1}' } },
          { index: 0, id: 'call_b', function: { arguments: ':2}' } },
        ]),
      ).toEqual([call('call_a', 'a', '{"x":1}'), call('call_b', 'b', '{"y":2}')]);
    });

    it('should give an id arriving later to the call started without one at that index', () => {
      expect(
        accumulate([
          { index: 0, function: { name: 'a', arguments: '{' } },
          { index: 0, id: 'call_a', function: { arguments: '}' } },
        ]),
      ).toEqual([call('call_a', 'a', '{}')]);
    });

    it('should tolerate null fields', () => {
      expect(
        accumulate([
          { index: null, id: null, type: null, function: { name: 'a', arguments: null } },
          { index: null, id: null, function: null },
          { index: null, id: '', function: { name: null, arguments: '{}' } },
        ]),
      ).toEqual([call('generated_1', 'a', '{}')]);
    });
  });

  describe('names and arguments', () => {
    it('should not double a name repeated on later fragments, nor take a different later name', () => {
      expect(
        accumulate([
          { index: 0, function: { name: 'get_weather', arguments: '{' } },
          { index: 0, function: { name: 'get_weather', arguments: '}' } },
          { index: 0, function: { name: 'other' } },
        ]),
      ).toEqual([call('generated_1', 'get_weather', '{}')]);
    });

    it('should take the name from the first fragment that has a non-empty one', () => {
      expect(
        accumulate([
          { index: 0, id: 'call_a', function: { name: '', arguments: '' } },
          { index: 0, function: { name: 'late', arguments: '{}' } },
        ]),
      ).toEqual([call('call_a', 'late', '{}')]);
    });

    it('should not double complete arguments that a server sends again at the end', () => {
      expect(
        accumulate([
          { index: 0, id: 'call_a', function: { name: 'a', arguments: '{"x":' } },
          { index: 0, function: { arguments: '1}' } },
          { index: 0, function: { arguments: '{"x":1}' } },
        ]),
      ).toEqual([call('call_a', 'a', '{"x":1}')]);
    });

    it('should not double an object sent again as an object', () => {
      expect(
        accumulate([
          { id: 'call_a', function: { name: 'a', arguments: { x: 1 } } },
          { id: 'call_a', function: { arguments: { x: 1 } } },
        ]),
      ).toEqual([call('call_a', 'a', '{"x":1}')]);
    });

    it('should concatenate a repeated piece while the arguments are not yet a complete object', () => {
      expect(
        accumulate([
          { index: 0, function: { name: 'a', arguments: '{"n":1' } },
          { index: 0, function: { arguments: '1' } },
          { index: 0, function: { arguments: '1}' } },
        ]),
      ).toEqual([call('generated_1', 'a', '{"n":111}')]);
      expect(accumulate([{ index: 0, function: { arguments: '1' } }, { index: 0, function: { arguments: '1' } }])).toEqual([
        call('generated_1', '', '11'),
      ]);
    });

    it('should give "{}" to a call whose fragments never carried arguments', () => {
      expect(accumulate([{ index: 0, id: 'call_a', function: { name: 'now' } }])).toEqual([call('call_a', 'now', '{}')]);
    });

    it('should keep "" for a call whose fragments carried only empty arguments', () => {
      expect(accumulate([{ index: 0, id: 'call_a', function: { name: 'now', arguments: '' } }])).toEqual([
        call('call_a', 'now', ''),
      ]);
    });
  });

  describe('output', () => {
    it('should order calls by index; a call whose index is taken, or that has none, takes the next free one', () => {
      expect(
        accumulate([
          { index: 2, id: 'two', function: { name: 'c', arguments: '{}' } },
          { index: 0, id: 'zero_a', function: { name: 'a', arguments: '{}' } },
          { index: 0, id: 'zero_b', function: { name: 'b', arguments: '{}' } },
          { id: 'no_index', function: { name: 'd', arguments: '{}' } },
        ]).map((toolCall) => toolCall.id),
      ).toEqual(['zero_a', 'two', 'zero_b', 'no_index']);
    });

    it('should make missing ids once, so that they stay the same across calls()', () => {
      const accumulator = createToolCallAccumulator({ generateId: sequentialIds() });
      accumulator.add({ index: 0, function: { name: 'a', arguments: '{}' } });
      accumulator.add({ index: 1, function: { name: 'b', arguments: '{}' } });
      const first = accumulator.calls();
      expect(first.map((toolCall) => toolCall.id)).toEqual(['generated_1', 'generated_2']);
      expect(accumulator.calls()).toEqual(first);
    });

    it('should make call_ + 24 base62 characters by default', () => {
      const accumulator = createToolCallAccumulator();
      accumulator.add({ index: 0, function: { name: 'a', arguments: '{}' } });
      expect(accumulator.calls()[0]?.id).toMatch(/^call_[0-9A-Za-z]{24}$/);
    });

    it('should count the calls started in size', () => {
      const accumulator = createToolCallAccumulator();
      expect(accumulator.size).toBe(0);
      accumulator.addAll([
        { index: 0, id: 'a', function: { name: 'a' } },
        { index: 0, function: { arguments: '{}' } },
        { index: 1, id: 'b', function: { name: 'b' } },
      ]);
      expect(accumulator.size).toBe(2);
    });

    it('should return copies that later fragments do not change', () => {
      const accumulator = createToolCallAccumulator();
      accumulator.add({ index: 0, id: 'a', function: { name: 'a', arguments: '{' } });
      const before = accumulator.calls();
      accumulator.add({ index: 0, function: { arguments: '}' } });
      expect(before[0]?.function.arguments).toBe('{');
      expect(accumulator.calls()[0]?.function.arguments).toBe('{}');
    });
  });

  describe('properties', () => {
    /** A prefix of `text` that is a complete JSON object followed by itself would be taken for a resend. */
    function repeatsAWholeObject(text: string): boolean {
      for (let end = 1; end <= text.length; end++) {
        const prefix = text.slice(0, end);
        if (!text.startsWith(prefix, end) || !prefix.trim().startsWith('{')) continue;
        try {
          JSON.parse(prefix);
          return true;
        } catch {
          // not a complete object
        }
      }
      return false;
    }

    function cut(text: string, offsets: readonly number[]): string[] {
      const points = offsets.map((offset) => offset % (text.length + 1)).sort((a, b) => a - b);
      const pieces: string[] = [];
      let start = 0;
      for (const point of points) {
        pieces.push(text.slice(start, point));
        start = point;
      }
      pieces.push(text.slice(start));
      return pieces;
    }

    const argumentsArbitrary = fc.oneof(
      fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }).map((value) => JSON.stringify(value)),
      fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }).map((value) => JSON.stringify(value, null, 2)),
      fc.string({ unit: 'binary' }),
    );
    const callsArbitrary = fc.array(
      fc.record({
        name: fc.string({ unit: fc.constantFrom('a', 'b', '_', '1'), minLength: 1, maxLength: 8 }),
        arguments: argumentsArbitrary,
        offsets: fc.array(fc.nat(), { maxLength: 8 }),
      }),
      { minLength: 1, maxLength: 4 },
    );

    /** Interleaves the calls' fragment lists, each kept in order, following `choices`. */
    function interleave<T>(lists: T[][], choices: readonly number[]): T[] {
      const queues = lists.map((list) => [...list]);
      const out: T[] = [];
      let step = 0;
      for (;;) {
        const open = queues.filter((queue) => queue.length > 0);
        if (open.length === 0) return out;
        const queue = open[(choices[step++ % Math.max(choices.length, 1)] ?? 0) % open.length] as T[];
        out.push(queue.shift() as T);
      }
    }

    it('should rebuild the same calls for any split of the arguments, in every dialect', () => {
      fc.assert(
        fc.property(
          callsArbitrary,
          fc.constantFrom('openai', 'id-on-every-delta', 'id-on-every-delta-no-index', 'all-at-index-0', 'no-index'),
          fc.array(fc.nat(), { maxLength: 40 }),
          (calls, dialect, choices) => {
            fc.pre(calls.every((toolCall) => !repeatsAWholeObject(toolCall.arguments)));
            const fragmentLists = calls.map((toolCall, index): ToolCallDelta[] => {
              const id = `call_${index}`;
              const pieces = cut(toolCall.arguments, toolCall.offsets);
              switch (dialect) {
                case 'openai':
                  return [
                    { index, id, type: 'function', function: { name: toolCall.name, arguments: '' } },
                    ...pieces.map((piece) => ({ index, function: { arguments: piece } })),
                  ];
                case 'id-on-every-delta':
                  return pieces.map((piece) => ({ index, id, type: 'function', function: { name: toolCall.name, arguments: piece } }));
                case 'id-on-every-delta-no-index':
                  return pieces.map((piece) => ({ id, function: { name: toolCall.name, arguments: piece } }));
                case 'all-at-index-0':
                  return pieces.map((piece, pieceIndex) =>
                    pieceIndex === 0
                      ? { index: 0, id, type: 'function', function: { name: toolCall.name, arguments: piece } }
                      : { index: 0, function: { arguments: piece } },
                  );
                default:
                  return pieces.map((piece, pieceIndex) =>
                    pieceIndex === 0 ? { id, function: { name: toolCall.name, arguments: piece } } : { function: { arguments: piece } },
                  );
              }
            });
            // Only dialects that name each fragment's call can interleave parallel calls.
            const canInterleave = dialect.startsWith('openai') || dialect.startsWith('id-on-every-delta');
            const deltas = canInterleave ? interleave(fragmentLists, choices) : fragmentLists.flat();
            const expected = calls.map((toolCall, index) => call(`call_${index}`, toolCall.name, toolCall.arguments));
            if (dialect === 'id-on-every-delta-no-index') {
              // Without indexes, the order is that of first appearance.
              const firstSeen = (id: string): number => deltas.findIndex((delta) => delta.id === id);
              expected.sort((left, right) => firstSeen(left.id) - firstSeen(right.id));
            }
            expect(accumulate(deltas)).toEqual(expected);
          },
        ),
        { numRuns: 500 },
      );
    });
  });
});
