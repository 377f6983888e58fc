import { describe, expect, it } from 'vitest';
import { timeOrderedUsageId } from './usage-id.js';

describe('timeOrderedUsageId', () => {
  it('sorts as text in the order of its times, then never repeats', () => {
    const times = [0, 1, 35, 36, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 36 ** 9 - 1];
    const ids = times.map((time) => timeOrderedUsageId(time));
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^u_[0-9a-z]{9}[0-9A-Za-z]{13}$/);
    const sameTime = new Set(Array.from({ length: 10_000 }, () => timeOrderedUsageId(1_700_000_000_000)));
    expect(sameTime.size).toBe(10_000);
  });
});
