import { describe, expect, it } from 'vitest';
import { generateRandomId, randomBase62 } from './ids.js';

describe('randomBase62', () => {
  it('draws the asked length from the base62 alphabet, across pool refills', () => {
    // 2,000 ids of 24 characters use well over one 4 KiB pool of random bytes.
    const ids = Array.from({ length: 2000 }, () => randomBase62(24));
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const text = randomBase62(62 * 2000);
    for (const character of text) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 2,000 each (σ ≈ 45); a biased draw (byte % 62 without rejection) would give the
    // first eight characters about 2,420 and the rest about 1,940.
    for (const count of counts.values()) expect(Math.abs(count - 2000)).toBeLessThan(250);
  });

  it('prefixes ids by kind', () => {
    expect(generateRandomId('completion')).toMatch(/^chatcmpl-[0-9A-Za-z]{24}$/);
    expect(generateRandomId('request')).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(generateRandomId('tool-call')).toMatch(/^call_[0-9A-Za-z]{24}$/);
  });
});
