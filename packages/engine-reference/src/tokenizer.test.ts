import { decode, encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { countTextTokens, maxRunLength, splitForEncoding, splitIntoTokenPieces, toWellFormed } from './tokenizer.js';

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

describe('splitForEncoding', () => {
  it('should leave ordinary text (and JSON) whole, so its count is exactly gpt-tokenizer\'s', () => {
    const text = `The quick brown fox. ${JSON.stringify({ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } })}`;
    expect(splitForEncoding(text)).toEqual([text]);
    expect(countTextTokens(text)).toBe(encode(text).length);
  });

  it('should cut long runs without a break, never inside a surrogate pair, and join back', () => {
    for (const text of ['x'.repeat(20_000), `a ${'😀'.repeat(8000)} b`, `${'x'.repeat(33)}${'😀'.repeat(100)}`, ' '.repeat(1000), `x${'😀'.repeat(300)}`]) {
      const pieces = splitForEncoding(text);
      expect(pieces.join('')).toBe(text);
      for (const piece of pieces) {
        expect(piece).toBe(toWellFormed(piece));
        expect(piece).not.toMatch(new RegExp(`[\\p{L}\\p{M}]{${2 * maxRunLength + 1}}|[^\\s\\p{L}\\p{M}\\p{N}]{${2 * maxRunLength + 1}}|\\s{${2 * maxRunLength + 1}}`, 'u'));
      }
    }
  });

  it('should count long runs in linear time and keep pieces and counts consistent', () => {
    const emoji = '😀'.repeat(8000);
    let started = performance.now();
    expect(countTextTokens(emoji)).toBe(8000);
    expect(performance.now() - started).toBeLessThan(250);
    const pieces = splitIntoTokenPieces(`${emoji} and ${'x'.repeat(20_000)}`);
    expect(pieces.map((piece) => piece.text).join('')).toBe(`${emoji} and ${'x'.repeat(20_000)}`);
    expect(pieces.at(-1)?.tokensThrough).toBe(countTextTokens(`${emoji} and ${'x'.repeat(20_000)}`));
    let letters = '';
    for (let index = 0; index < 200_000; index++) letters += String.fromCharCode(97 + ((index * 7919) % 26));
    started = performance.now();
    countTextTokens(letters);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
