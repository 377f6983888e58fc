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

/** Tokens of `text` under o200k_base, special-token text treated as plain text. @internal */
export function encodeText(text: string): number[] {
  return encode(text, plainText);
}

/** Number of o200k_base tokens in `text`. @internal */
export function countTextTokens(text: string): number {
  return text === '' ? 0 : countTokens(text, plainText);
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
