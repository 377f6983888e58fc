import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryWindows } from './memory-windows.js';

describe('MemoryWindows', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('should count per key in fixed windows and give refunds back to their own window only', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const windows = new MemoryWindows(60);
    const first = windows.addNow('a', 5);
    expect(first).toMatchObject({ total: 5, resetsAt: Date.UTC(2026, 0, 1, 0, 1), backend: 'memory' });
    expect(windows.addNow('a', 3).total).toBe(8);
    expect(windows.addNow('b', 1).total).toBe(1);
    void first.refund(2);
    expect(windows.readNow('a')).toEqual({ total: 6, resetsAt: Date.UTC(2026, 0, 1, 0, 1) });
    vi.setSystemTime(Date.UTC(2026, 0, 1, 0, 1));
    expect(windows.readNow('a').total).toBe(0);
    void first.refund(5);
    expect(windows.addNow('a', 1).total).toBe(1);
  });

  it('should forget the keys whose window ended, at most once per window length', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const windows = new MemoryWindows(60);
    for (let index = 0; index < 100; index++) windows.addNow(`key ${index}`, 1);
    expect(windows.size).toBe(100);
    vi.setSystemTime(Date.UTC(2026, 0, 1, 0, 1, 30));
    windows.addNow('key 0', 1);
    expect(windows.size).toBe(1);
  });
});
