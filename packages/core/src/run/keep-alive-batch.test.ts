import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeepAliveBatch } from './keep-alive-batch.js';

function waiter(name: string, fired: string[]) {
  return { keepAlive: () => fired.push(name) };
}

describe('KeepAliveBatch', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('should share one timer between waiters of one millisecond and fire them in the order they joined', async () => {
    const fired: string[] = [];
    const first = KeepAliveBatch.join(waiter('a', fired), 100);
    const second = KeepAliveBatch.join(waiter('b', fired), 100);
    expect(second).toBe(first);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(['a', 'b']);
  });

  it('should time a waiter of a later millisecond, or of another interval, on its own', async () => {
    const fired: string[] = [];
    const first = KeepAliveBatch.join(waiter('a', fired), 100);
    expect(KeepAliveBatch.join(waiter('b', fired), 50)).not.toBe(first);
    await vi.advanceTimersByTimeAsync(10);
    expect(KeepAliveBatch.join(waiter('c', fired), 100)).not.toBe(first);
    await vi.advanceTimersByTimeAsync(90);
    expect(fired).toEqual(['b', 'a']);
    await vi.advanceTimersByTimeAsync(10);
    expect(fired).toEqual(['b', 'a', 'c']);
  });

  it('should not fire a waiter that left, and clear the timer once every waiter left', async () => {
    const fired: string[] = [];
    const a = waiter('a', fired);
    const b = waiter('b', fired);
    const batch = KeepAliveBatch.join(a, 100);
    KeepAliveBatch.join(b, 100);
    batch.leave(a);
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toEqual(['b']);
    const c = waiter('c', fired);
    KeepAliveBatch.join(c, 100).leave(c);
    expect(vi.getTimerCount()).toBe(0);
  });
});
