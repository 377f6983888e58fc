import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextUtcMidnight, utcDay } from './utc-day.js';

const dayMs = 86_400_000;

describe('utcDay and nextUtcMidnight', () => {
  it('should answer as Date does for any time, in any order (the remembered day is only a shortcut)', () => {
    const time = fc.oneof(
      fc.integer({ min: -8.64e15 + dayMs, max: 8.64e15 - dayMs }),
      // Around midnights, where the remembered day changes.
      fc.tuple(fc.integer({ min: -100_000, max: 100_000 }), fc.integer({ min: -2, max: 2 })).map(([day, ms]) => day * dayMs + ms),
    );
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (times) => {
        for (const at of times) {
          expect(utcDay(at)).toBe(new Date(at).toISOString().slice(0, 10));
          // setUTCHours, not Date.UTC(year, …): Date.UTC reads the years 0–99 as 1900–1999.
          expect(nextUtcMidnight(at)).toBe(new Date(at).setUTCHours(24, 0, 0, 0));
        }
      }),
      { numRuns: 500 },
    );
  });
});
