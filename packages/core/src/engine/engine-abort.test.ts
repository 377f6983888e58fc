import { describe, expect, it } from 'vitest';
import { isRunAborted, listenForAbort, stopListeningForAbort } from './engine-abort.js';

describe('engine abort helpers', () => {
  it('should fall back to the signal of a context made by hand', () => {
    const controller = new AbortController();
    const context = { signal: controller.signal };
    let called = 0;
    const kept = () => called++;
    const removed = () => (called += 100);
    listenForAbort(context, kept);
    listenForAbort(context, removed);
    stopListeningForAbort(context, removed);
    expect(isRunAborted(context)).toBe(false);
    controller.abort(new Error('gone'));
    expect(called).toBe(1);
    expect(isRunAborted(context)).toBe(true);
  });

  it('should use onAbort, offAbort and aborted where the context has them, without reading its signal', () => {
    const listeners = new Set<() => void>();
    const context = {
      get signal(): AbortSignal {
        throw new Error('the signal was read');
      },
      aborted: false,
      onAbort: (listener: () => void) => void listeners.add(listener),
      offAbort: (listener: () => void) => void listeners.delete(listener),
    };
    const listener = () => undefined;
    listenForAbort(context, listener);
    expect(listeners.has(listener)).toBe(true);
    expect(isRunAborted(context)).toBe(false);
    stopListeningForAbort(context, listener);
    expect(listeners.size).toBe(0);
  });
});
