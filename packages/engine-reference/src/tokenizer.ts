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

/** No piece handed to the BPE has a run longer than this (UTF-16 code units) without a break. */
export const maxRunLength = 256;
/** A run of whitespace or of non-whitespace longer than `maxRunLength`. */
const longRun = new RegExp(`\\s{${maxRunLength + 1},}|\\S{${maxRunLength + 1},}`, 'gu');

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * `text` cut into pieces for the BPE. gpt-tokenizer's byte-pair merge is quadratic in the
 * length of one pre-tokenizer chunk, and a run without spaces (8,000 emoji, a 20,000-letter
 * word) is one chunk: seconds of synchronous work. So every run of whitespace or of
 * non-whitespace longer than `maxRunLength` is cut every `maxRunLength` code units (one
 * earlier when that would split a surrogate pair); text without such runs is one piece, so
 * its count is exactly gpt-tokenizer's. A long run may count a few tokens more or less than
 * encoding it whole; every count in this package goes through here, so they all agree.
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
