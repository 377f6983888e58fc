import type { ToolCallDelta } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createUpstreamToolCallMapper } from './upstream-tool-call-mapper.js';

/** Feeds one delta array per upstream chunk and returns the calls as the core would merge them. */
function mapAll(chunks: ToolCallDelta[][]) {
  const mapper = createUpstreamToolCallMapper();
  const events = [...chunks.flatMap((deltas) => mapper.push(deltas)), ...mapper.end()];
  const calls: { name: string; arguments: string }[] = [];
  for (const event of events) {
    if (event.name !== undefined) {
      expect(calls[event.index]).toBeUndefined();
      calls[event.index] = { name: event.name, arguments: '' };
    }
    calls[event.index]!.arguments += event.argumentsDelta;
  }
  return { events, calls };
}

const weather = { name: 'get_weather', arguments: '{"city":"Paris"}' };
const time = { name: 'get_time', arguments: '{"zone":"CET"}' };

describe('createUpstreamToolCallMapper', () => {
  it('should pass OpenAI-style deltas through, the name on the first event', () => {
    const { events, calls } = mapAll([
      [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      [{ index: 0, function: { arguments: '{"city":' } }],
      [{ index: 0, function: { arguments: '"Paris"}' } }],
      [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }],
      [{ index: 1, function: { arguments: '{"zone":"CET"}' } }],
    ]);
    expect(events[0]).toEqual({ type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '' });
    expect(events[1]).toEqual({ type: 'tool-call', index: 0, argumentsDelta: '{"city":' });
    expect(calls).toEqual([weather, time]);
  });

  it('should merge deltas that repeat the id, type and name every time', () => {
    const piece = (index: number, id: string, name: string, args: string): ToolCallDelta => ({ index, id, type: 'function', function: { name, arguments: args } });
    const { calls } = mapAll([
      [piece(0, 'call_a', 'get_weather', '{"city"')],
      [piece(0, 'call_a', 'get_weather', ':"Paris"}')],
      [piece(1, 'call_b', 'get_time', '{"zone":"CET"}')],
    ]);
    expect(calls).toEqual([weather, time]);
  });

  it('should take a whole call in one delta, with object arguments stringified', () => {
    const { events, calls } = mapAll([[{ id: 'call_a', function: { name: 'get_weather', arguments: { city: 'Paris' } } }]]);
    expect(events).toEqual([{ type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '{"city":"Paris"}' }]);
    expect(calls).toEqual([weather]);
  });

  it('should tell parallel calls apart by id when they share an index or have none', () => {
    expect(
      mapAll([
        [{ index: 0, id: 'call_a', function: { name: 'get_weather', arguments: weather.arguments } }],
        [{ index: 0, id: 'call_b', function: { name: 'get_time', arguments: time.arguments } }],
      ]).calls,
    ).toEqual([weather, time]);
    expect(
      mapAll([
        [{ id: 'call_a', function: { name: 'get_weather', arguments: '{"city":' } }],
        [{ id: 'call_b', function: { name: 'get_time', arguments: '' } }],
        [{ id: 'call_a', function: { arguments: '"Paris"}' } }],
        [{ id: 'call_b', function: { arguments: time.arguments } }],
      ]).calls,
    ).toEqual([weather, time]);
  });

  it('should append deltas without id or index to the latest call, and start a new one on a new name', () => {
    const { calls } = mapAll([
      [{ function: { name: 'get_weather' } }],
      [{ function: { arguments: '{"city":"Paris"}' } }],
      [{ function: { name: 'get_time', arguments: '{"zone":' } }],
      [{ function: { arguments: '"CET"}' } }],
    ]);
    expect(calls).toEqual([weather, time]);
  });

  it('should hold arguments that arrive before the name', () => {
    const { events, calls } = mapAll([[{ index: 0, id: 'call_a', function: { arguments: '{"city":' } }], [{ index: 0, function: { name: 'get_weather', arguments: '"Paris"}' } }]]);
    expect(events).toHaveLength(1);
    expect(calls).toEqual([weather]);
  });

  it('should still announce a call whose name never came', () => {
    const mapper = createUpstreamToolCallMapper();
    expect(mapper.push([{ index: 0, function: { arguments: '{}' } }])).toEqual([]);
    expect(mapper.end()).toEqual([{ type: 'tool-call', index: 0, name: '', argumentsDelta: '{}' }]);
    expect(mapper.count).toBe(1);
  });
});
