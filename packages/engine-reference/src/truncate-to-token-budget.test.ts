import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { truncateToTokenBudget } from './truncate-to-token-budget.js';

describe('truncateToTokenBudget', () => {
  it('should keep a text that fits', () => {
    expect(truncateToTokenBudget('one two three', 10)).toMatchObject({ text: 'one two three', tokens: 3, truncated: false });
  });

  it('should cut at a token boundary to exactly the budget', () => {
    expect(truncateToTokenBudget('one two three', 2)).toMatchObject({ text: 'one two', tokens: 2, truncated: true });
  });

  it('should never end inside a multibyte character', () => {
    const text = '🎉🎉🎉 wörld 日本語 👨‍👩‍👧';
    for (let budget = 0; budget <= countTokens(text); budget++) {
      const cut = truncateToTokenBudget(text, budget);
      expect(text.startsWith(cut.text)).toBe(true);
      expect(cut.text).not.toContain('\uFFFD');
      expect(countTokens(cut.text)).toBe(cut.tokens);
      expect(cut.tokens).toBeLessThanOrEqual(budget);
      expect(cut.pieces.map((piece) => piece.text).join('')).toBe(cut.text);
    }
  });

  it('should return nothing for a zero budget', () => {
    expect(truncateToTokenBudget('hello', 0)).toEqual({ text: '', tokens: 0, truncated: true, pieces: [] });
  });
});
