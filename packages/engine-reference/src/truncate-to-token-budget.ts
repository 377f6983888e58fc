import { countTextTokens, splitIntoTokenPieces, type TokenPiece } from './tokenizer.js';

/** The part of a text that fits a token budget, already split for streaming (or whole). @internal */
export interface TokenBudgetCut {
  text: string;
  tokens: number;
  /** Whether anything was cut off. */
  truncated: boolean;
  pieces: TokenPiece[];
}

/**
 * How a cut's text is handed out: a piece per token for a client that reads the events as they
 * come, or `whole` (one piece) for one that waits for the answer, which then costs a count
 * instead of an encode and a decode token by token.
 */
export type PieceSize = 'token' | 'whole';

/**
 * Cuts `text` at a token boundary so that it re-tokenizes to at most `budget` tokens.
 *
 * The cut falls after the last whole token that fits and never inside a character. A
 * prefix can re-tokenize differently from the tokens it came from, so we step back one
 * piece at a time until the prefix's own count fits: the count we report is then exactly
 * what a client re-counting the text gets.
 *
 * @example
 * truncateToTokenBudget('one two three', 2).text; // 'one two'
 * @internal
 */
export function truncateToTokenBudget(text: string, budget: number, pieceSize: PieceSize = 'token'): TokenBudgetCut {
  const limit = Math.max(0, Math.floor(budget));
  if (pieceSize === 'whole') {
    const total = countTextTokens(text);
    if (total <= limit) return { text, tokens: total, truncated: false, pieces: text === '' ? [] : [{ text, tokensThrough: total }] };
  }
  const pieces = splitIntoTokenPieces(text);
  const total = pieces.at(-1)?.tokensThrough ?? 0;
  if (total <= limit) return { text, tokens: total, truncated: false, pieces };
  let count = pieces.filter((piece) => piece.tokensThrough <= limit).length;
  for (; count > 0; count--) {
    const kept = pieces.slice(0, count);
    const prefix = kept.map((piece) => piece.text).join('');
    const tokens = countTextTokens(prefix);
    if (tokens <= limit) return { text: prefix, tokens, truncated: true, pieces: pieceSize === 'whole' ? [{ text: prefix, tokensThrough: tokens }] : kept };
  }
  return { text: '', tokens: 0, truncated: true, pieces: [] };
}
