import { decode, encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { countTextTokens, splitIntoTokenPieces, toWellFormed } from './tokenizer.js';

describe('splitIntoTokenPieces', () => {
  it('should give one piece per token with the running count', () => {
    expect(splitIntoTokenPieces('Hello world')).toEqual([
      { text: 'Hello', tokensThrough: 1 },
      { text: ' world', tokensThrough: 2 },
    ]);
  });

  it('should merge tokens that end inside a character and keep the count exact', () => {
    const text = 'ㄘ𐲊 🎉 👨‍👩‍👧 wörld';
    const pieces = splitIntoTokenPieces(text);
    expect(pieces.map((piece) => piece.text).join('')).toBe(text);
    expect(pieces.at(-1)?.tokensThrough).toBe(countTextTokens(text));
    for (const piece of pieces) expect(piece.text).not.toContain('\uFFFD');
  });

  /** gpt-tokenizer 3.4 shares one streaming TextDecoder; a decode cut mid-character leaves bytes in it. */
  it('should not be thrown off by a decode elsewhere that ended inside a character', () => {
    const text = 'ㄘ𐲊 and more';
    const [first] = encode('𐲊');
    decode([first ?? 0]); // leaves an incomplete sequence in the shared decoder
    expect(splitIntoTokenPieces(text).map((piece) => piece.text).join('')).toBe(text);
    expect(splitIntoTokenPieces(text)).toEqual(splitIntoTokenPieces(text));
  });

  it('should treat special-token text as plain text', () => {
    expect(countTextTokens('<|endoftext|>')).toBeGreaterThan(1);
  });
});

describe('toWellFormed', () => {
  it('should replace lone surrogates and keep pairs', () => {
    expect(toWellFormed('a\uD800b\uDC00c😀')).toBe('a\uFFFDb\uFFFDc😀');
  });
});
