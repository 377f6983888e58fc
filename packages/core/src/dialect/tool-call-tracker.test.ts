import { describe, expect, it } from 'vitest';
import { createToolCallTracker } from './tool-call-tracker.js';

type Fragment = [index: number | undefined, id: string | undefined, name: string | undefined, args: string | undefined];

function positions(fragments: Fragment[]): number[] {
  const tracker = createToolCallTracker();
  return fragments.map((fragment) => tracker.track(...fragment).index);
}

describe('createToolCallTracker', () => {
  it('should keep the wire indexes of a well-formed stream', () => {
    expect(positions([[0, 'a', 'f', ''], [1, 'b', 'g', ''], [0, undefined, undefined, '{}'], [1, undefined, undefined, '{}']])).toEqual([0, 1, 0, 1]);
  });

  it('should give each id its own position when every call says index 0', () => {
    expect(positions([[0, 'a', 'f', '{'], [0, undefined, undefined, '}'], [0, 'b', 'g', '{'], [0, undefined, undefined, '}']])).toEqual([0, 0, 1, 1]);
  });

  it('should follow ids repeated on every fragment, without indexes', () => {
    expect(positions([[undefined, 'a', 'f', '{'], [undefined, 'b', 'g', '{'], [undefined, 'a', undefined, '}'], [undefined, 'b', undefined, '}']])).toEqual([0, 1, 0, 1]);
  });

  it('should start a call on a new name, or on the same name once the arguments are whole, when there is no id or index', () => {
    expect(
      positions([
        [undefined, undefined, 'f', '{"a":'],
        [undefined, undefined, undefined, '1}'],
        [undefined, undefined, 'g', ''],
        [undefined, undefined, 'g', '{}'],
        [undefined, undefined, 'g', '{}'],
      ]),
    ).toEqual([0, 0, 1, 1, 2]);
  });

  it('should let a call started without an id adopt the id that arrives at its index', () => {
    const tracker = createToolCallTracker();
    tracker.track(0, undefined, 'f', '{');
    expect(tracker.track(0, 'call_a', undefined, '}')).toMatchObject({ index: 0, id: 'call_a', name: 'f', arguments: '{}' });
    expect(tracker.count()).toBe(1);
  });

  it('should report the text each fragment appended, and none for a resend of the whole arguments', () => {
    const tracker = createToolCallTracker();
    tracker.track(0, 'a', 'f', '{"x":1}');
    expect(tracker.appended()).toBe('{"x":1}');
    tracker.track(0, 'a', 'f', '{"x":1}');
    expect(tracker.appended()).toBe('');
    tracker.track(0, 'a', undefined, undefined);
    expect(tracker.appended()).toBe('');
    expect(tracker.calls()).toEqual([{ index: 0, id: 'a', name: 'f', arguments: '{"x":1}', hasArguments: true }]);
  });
});
