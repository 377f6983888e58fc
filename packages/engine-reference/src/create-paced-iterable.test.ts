import type { ChatEngineEvent } from '@quantum-chat/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { collect } from '../test/request-fixtures.js';
import { createPacedIterable } from './create-paced-iterable.js';

const events: ChatEngineEvent[] = [
  { type: 'content', text: 'a' },
  { type: 'content', text: 'b' },
  { type: 'content', text: 'c' },
  { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 3, reasoningTokens: 0 } },
];

describe('createPacedIterable', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('should hand out every event back to back without any timer when unpaced', async () => {
    const iterator = createPacedIterable(() => events, {}, { signal: new AbortController().signal })[Symbol.asyncIterator]();
    const first = iterator.next();
    expect(vi.getTimerCount()).toBe(0);
    expect(await first).toEqual({ done: false, value: events[0] });
    expect(await collect({ [Symbol.asyncIterator]: () => iterator })).toEqual(events.slice(1));
  });

  it('should hand over the rest of an unpaced answer through takeReady once the first event is out', async () => {
    const iterator = createPacedIterable(() => events, {}, { signal: new AbortController().signal })[Symbol.asyncIterator]();
    expect(iterator.takeReady()).toBeUndefined();
    const first = iterator.next();
    // Not before the pending next() settled: it must not be overtaken.
    expect(iterator.takeReady()).toBeUndefined();
    expect(await first).toEqual({ done: false, value: events[0] });
    expect([iterator.takeReady(), iterator.takeReady(), iterator.takeReady(), iterator.takeReady()]).toEqual([...events.slice(1), undefined]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('should hand nothing over through takeReady when paced, or once the run is aborted', async () => {
    const paced = createPacedIterable(() => events, { tokensPerSecond: 10 }, { signal: new AbortController().signal })[Symbol.asyncIterator]();
    const first = paced.next();
    await vi.advanceTimersByTimeAsync(0);
    await first;
    expect(paced.takeReady()).toBeUndefined();
    await paced.return!();

    const controller = new AbortController();
    const unpaced = createPacedIterable(() => events, {}, { signal: controller.signal })[Symbol.asyncIterator]();
    await unpaced.next();
    controller.abort(new Error('gone'));
    expect(unpaced.takeReady()).toBeUndefined();
    await expect(unpaced.next()).rejects.toThrow('gone');
  });

  it('should wait the first-token delay, then one interval per piece, and none before finish', async () => {
    const iterator = createPacedIterable(() => events, { firstTokenDelayMs: 500, tokensPerSecond: 10 }, { signal: new AbortController().signal })[Symbol.asyncIterator]();
    const first = iterator.next();
    await vi.advanceTimersByTimeAsync(499);
    let settled = false;
    void first.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await first).toEqual({ done: false, value: events[0] });
    const second = iterator.next();
    await vi.advanceTimersByTimeAsync(100);
    expect(await second).toEqual({ done: false, value: events[1] });
    const third = iterator.next();
    await vi.advanceTimersByTimeAsync(100);
    await third;
    const finish = iterator.next();
    await vi.advanceTimersByTimeAsync(0);
    expect(await finish).toEqual({ done: false, value: events[3] });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('should reject the pending next() with the abort reason and clear the timer', async () => {
    const controller = new AbortController();
    const iterator = createPacedIterable(() => events, { firstTokenDelayMs: 60_000 }, { signal: controller.signal })[Symbol.asyncIterator]();
    const pending = iterator.next();
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error('client left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('should throw the abort reason on the next call when aborted between pieces', async () => {
    const controller = new AbortController();
    const iterator = createPacedIterable(() => events, {}, { signal: controller.signal })[Symbol.asyncIterator]();
    await iterator.next();
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(iterator.next()).rejects.toBe(reason);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('should throw at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const produce = vi.fn(() => events);
    await expect(collect(createPacedIterable(produce, {}, { signal: controller.signal }))).rejects.toMatchObject({ name: 'AbortError' });
    expect(produce).not.toHaveBeenCalled();
  });

  it('should end at once on return() during a delay, without waiting it out', async () => {
    const signal = new AbortController().signal;
    const iterator = createPacedIterable(() => events, { firstTokenDelayMs: 60_000 }, { signal })[Symbol.asyncIterator]();
    const pending = iterator.next();
    await vi.advanceTimersByTimeAsync(0);
    await expect(iterator.return?.()).resolves.toEqual({ done: true, value: undefined });
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('should stop when a for-await loop breaks early', async () => {
    const seen: ChatEngineEvent[] = [];
    const loop = (async () => {
      for await (const event of createPacedIterable(() => events, { tokensPerSecond: 1 }, { signal: new AbortController().signal })) {
        seen.push(event);
        if (seen.length === 2) break;
      }
    })();
    await vi.advanceTimersByTimeAsync(5_000);
    await loop;
    expect(seen).toEqual(events.slice(0, 2));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('should give each for-await loop its own pass over the events', async () => {
    const iterable = createPacedIterable(() => events, {}, { signal: new AbortController().signal });
    expect(await collect(iterable)).toEqual(events);
    expect(await collect(iterable)).toEqual(events);
  });
});
