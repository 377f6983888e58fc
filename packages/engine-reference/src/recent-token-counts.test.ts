import { describe, expect, it } from 'vitest';
import { RecentTokenCounts } from './recent-token-counts.js';
import { countTextTokens } from './tokenizer.js';

describe('RecentTokenCounts', () => {
  it('should forget the oldest texts past its entries or its characters', () => {
    const counts = new RecentTokenCounts(3, 10);
    for (const text of ['a', 'b', 'c', 'd']) counts.remember(text, text.charCodeAt(0));
    expect(counts.get('a')).toBeUndefined();
    expect(counts.get('d')).toBe(100);
    expect(counts.size).toEqual({ entries: 3, characters: 3 });
    counts.remember('123456789', 9);
    expect(counts.size).toEqual({ entries: 2, characters: 10 });
    expect(counts.get('c')).toBeUndefined();
    expect(counts.get('123456789')).toBe(9);
  });

  it('should hold a flood of distinct texts within its bounds', () => {
    const counts = new RecentTokenCounts(4096, 64 * 1024);
    for (let index = 0; index < 50_000; index++) counts.remember(`text number ${index} ${'x'.repeat(index % 200)}`, index);
    expect(counts.size.entries).toBeLessThanOrEqual(4096);
    expect(counts.size.characters).toBeLessThanOrEqual(64 * 1024);
  });

  it('should not remember texts longer than a prompt slice', () => {
    const counts = new RecentTokenCounts();
    counts.remember('y'.repeat(20_000), 1);
    expect(counts.size.entries).toBe(0);
  });

  it('should leave every count as the tokenizer gives it', () => {
    const texts = ['Hello there, how are you?', 'user', '  spaced  out\n', 'emoji 🙂🙂 and ünïcode', 'a'.repeat(5000)];
    const first = texts.map((text) => countTextTokens(text));
    const again = texts.map((text) => countTextTokens(text));
    expect(again).toEqual(first);
    expect(first[1]).toBe(1);
  });
});
