import { countTextTokens, decodeTokens, encodeText } from './tokenizer.js';

/** The part of a text that fits a token budget. @internal */
export interface TokenBudgetCut {
  text: string;
  tokens: number;
  /** Whether anything was cut off. */
  truncated: boolean;
}

/**
 * Cuts `text` at a token boundary so that it re-tokenizes to at most `budget` tokens.
 *
 * Decoding the first `budget` tokens can end inside a multibyte character, and the decoded
 * prefix can re-tokenize differently from the tokens it came from. So we step back one
 * token at a time until the decoded prefix is a true prefix of `text` and its own count
 * fits: the count we report is then exactly what a client re-counting the text gets.
 *
 * @example
 * truncateToTokenBudget('one two three', 2); // { text: 'one two', tokens: 2, truncated: true }
 * @internal
 */
export function truncateToTokenBudget(text: string, budget: number): TokenBudgetCut {
  const limit = Math.max(0, Math.floor(budget));
  const tokens = encodeText(text);
  if (tokens.length <= limit) return { text, tokens: tokens.length, truncated: false };
  for (let count = limit; count > 0; count--) {
    const prefix = decodeTokens(tokens.slice(0, count));
    if (!text.startsWith(prefix)) continue;
    const prefixTokens = countTextTokens(prefix);
    if (prefixTokens <= limit) return { text: prefix, tokens: prefixTokens, truncated: true };
  }
  return { text: '', tokens: 0, truncated: true };
}
