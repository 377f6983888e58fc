import { countTokens, decodeGenerator, encode } from 'gpt-tokenizer';

/*
 * Every count in this package goes through these functions, so prompt usage, completion
 * usage and the `maxTokens` cut all agree. The encoding is o200k_base (the default of
 * `gpt-tokenizer`). Special-token text such as `<|endoftext|>` in a user message is encoded
 * as plain text instead of throwing, because it is data, not control.
 *
 * We never decode a token list that ends inside a character: gpt-tokenizer 3.4 decodes with
 * one module-wide `TextDecoder` in streaming mode and never flushes it, so the leftover bytes
 * of such a decode would corrupt the next decode anywhere in the process (and made cuts
 * depend on what ran before). Instead we decode whole, valid texts once and read the token
 * boundaries off the decoder as it goes.
 */
const plainText = { disallowedSpecial: new Set<string>() };

/** No piece handed to the BPE has a run of one character class longer than this (code points). */
export const maxRunLength = 32;
/*
 * A run of letters (with their marks), of other symbols (punctuation, emoji) or of whitespace
 * longer than `maxRunLength`: the classes o200k's pre-tokenizer splits on (digits come in
 * groups of at most three already), so none of its chunks is much longer than such a run.
 */
const longRun = new RegExp(
  `[\\p{L}\\p{M}]{${maxRunLength + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${maxRunLength + 1},}|\\s{${maxRunLength + 1},}`,
  'gu',
);

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * `text` cut into pieces for the BPE. gpt-tokenizer's byte-pair merge is quadratic in the
 * length of one pre-tokenizer chunk, and a run without a break (8,000 emoji, a 20,000-letter
 * word) is one chunk: seconds of synchronous work. So every run (see `longRun`) longer than
 * `maxRunLength` is cut every `maxRunLength` code units (one earlier when that would split a
 * surrogate pair), which makes the work linear with a small constant (a 1 MiB run of random
 * letters: about 0.3 s, like 1 MiB of prose; 256-unit pieces would still cost seconds).
 * Text without such runs is one piece, so its count is exactly gpt-tokenizer's; a long run
 * may count a token or so more than encoding it whole. Every count in this package goes
 * through here, so prompt usage, completion usage and the `maxTokens` cut all agree.
 * @internal
 */
export function splitForEncoding(text: string): string[] {
  if (text.length <= maxRunLength) return [text];
  const pieces: string[] = [];
  let start = 0;
  for (const match of text.matchAll(longRun)) {
    const end = match.index + match[0].length;
    let cut = match.index + maxRunLength;
    while (end - cut > 0) {
      if (isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
      pieces.push(text.slice(start, cut));
      start = cut;
      cut += maxRunLength;
    }
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** Tokens of `text` under o200k_base, special-token text treated as plain text. @internal */
export function encodeText(text: string): number[] {
  const pieces = splitForEncoding(text);
  if (pieces.length === 1) return encode(text, plainText);
  const tokens: number[] = [];
  for (const piece of pieces) for (const token of encode(piece, plainText)) tokens.push(token);
  return tokens;
}

/** Number of o200k_base tokens in `text` (long runs counted in pieces, see `splitForEncoding`). @internal */
export function countTextTokens(text: string): number {
  if (text === '') return 0;
  let tokens = 0;
  for (const piece of splitForEncoding(text)) tokens += countTokens(piece, plainText);
  return tokens;
}

/** Lone surrogates replaced by U+FFFD, which is what the tokenizer encodes them as anyway. @internal */
export function toWellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu, '\uFFFD');
}

/** A streamable piece of text and the number of tokens up to and including it. @internal */
export interface TokenPiece {
  text: string;
  tokensThrough: number;
}

function decodeCounting(tokens: readonly number[]): TokenPiece[] {
  let consumed = 0;
  const counted: Iterable<number> = {
    *[Symbol.iterator]() {
      for (const token of tokens) {
        consumed++;
        yield token;
      }
    },
  };
  const pieces: TokenPiece[] = [];
  // decodeGenerator pulls one token at a time, so `consumed` is exact at each yield.
  for (const text of decodeGenerator(counted)) if (text !== '') pieces.push({ text, tokensThrough: consumed });
  return pieces;
}

/**
 * Splits `text` into one piece per token (a token that ends inside a character is merged
 * with the next), each with the running token count. The pieces always join back to `text`.
 *
 * @example
 * splitIntoTokenPieces('Hello world'); // [{ text: 'Hello', tokensThrough: 1 }, { text: ' world', tokensThrough: 2 }]
 * @internal
 */
export function splitIntoTokenPieces(text: string): TokenPiece[] {
  if (text === '') return [];
  const tokens = encodeText(text);
  // A second pass absorbs bytes another caller of gpt-tokenizer may have left in its decoder.
  for (let attempt = 0; attempt < 2; attempt++) {
    const pieces = decodeCounting(tokens);
    if (pieces.map((piece) => piece.text).join('') === text) return pieces;
  }
  return [{ text, tokensThrough: tokens.length }]; // not well-formed UTF-16: one piece
}
