import fc from 'fast-check';
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

/** The regex `splitForEncoding` was first written with: the oracle its one-pass scan must agree with. */
function splitWithRegex(text: string): string[] {
  if (text.length <= maxRunLength) return [text];
  const longRun = new RegExp(`[\\p{L}\\p{M}]{${maxRunLength + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${maxRunLength + 1},}|\\s{${maxRunLength + 1},}`, 'gu');
  const pieces: string[] = [];
  let start = 0;
  for (const match of text.matchAll(longRun)) {
    const end = match.index + match[0].length;
    let cut = match.index + maxRunLength;
    while (end - cut > 0) {
      if (text.charCodeAt(cut - 1) >= 0xd800 && text.charCodeAt(cut - 1) <= 0xdbff) cut--;
      pieces.push(text.slice(start, cut));
      start = cut;
      cut += maxRunLength;
    }
  }
  pieces.push(text.slice(start));
  return pieces;
}

describe('splitForEncoding', () => {
  it('should cut exactly where the regex over runs of one class cuts, for any text', () => {
    // Runs of every class, near the threshold and well past it, mixed with digits, marks, CJK,
    // astral letters and symbols, lone surrogates and the rarer whitespace.
    const atoms = ['a', 'Z', 'é', 'e\u0301', '漢', '𐲊', '😀', '👨‍👩‍👧', '1', '٣', '.', '—', ' ', '\t', '\n', '\u00a0', '\u3000', '\ufeff', '\ud800', '\udc00', '_'];
    const run = fc.tuple(fc.constantFrom(...atoms), fc.integer({ min: 1, max: 80 })).map(([atom, count]) => atom.repeat(count));
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...atoms), run), { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        expect(splitForEncoding(text)).toEqual(splitWithRegex(text));
      }),
      { numRuns: 2000 },
    );
    for (const text of [`${'x'.repeat(33)}${'😀'.repeat(100)}`, ' '.repeat(1000), 'a'.repeat(32) + '1' + 'a'.repeat(33), '\ud800'.repeat(40), `x${'😀'.repeat(300)}`]) {
      expect(splitForEncoding(text)).toEqual(splitWithRegex(text));
    }
  });

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
    // The BPE is quadratic only in the length of one piece: pieces of at most maxRunLength
    // code units make the whole count linear in the text (the time is printed, not bounded).
    const emoji = '😀'.repeat(8000);
    expect(countTextTokens(emoji)).toBe(8000);
    const emojiPieces = splitForEncoding(emoji);
    expect(emojiPieces.length).toBeGreaterThanOrEqual(emoji.length / maxRunLength);
    expect(Math.max(...emojiPieces.map((piece) => piece.length))).toBeLessThanOrEqual(maxRunLength);
    const pieces = splitIntoTokenPieces(`${emoji} and ${'x'.repeat(20_000)}`);
    expect(pieces.map((piece) => piece.text).join('')).toBe(`${emoji} and ${'x'.repeat(20_000)}`);
    expect(pieces.at(-1)?.tokensThrough).toBe(countTextTokens(`${emoji} and ${'x'.repeat(20_000)}`));
    let letters = '';
    for (let index = 0; index < 200_000; index++) letters += String.fromCharCode(97 + ((index * 7919) % 26));
    const letterPieces = splitForEncoding(letters);
    expect(letterPieces).toHaveLength(Math.ceil(letters.length / maxRunLength));
    expect(Math.max(...letterPieces.map((piece) => piece.length))).toBeLessThanOrEqual(maxRunLength);
    const started = performance.now();
    expect(countTextTokens(letters)).toBeGreaterThan(letters.length / maxRunLength);
    console.info(`200,000 letters without a break counted in ${(performance.now() - started).toFixed(0)} ms`);
  });
});
