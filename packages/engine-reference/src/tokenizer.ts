import { countTokens, decodeGenerator, encode } from 'gpt-tokenizer';
import { RecentTokenCounts } from './recent-token-counts.js';

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
 * The classes o200k's pre-tokenizer splits on, for finding long runs of one: letters with their
 * marks, whitespace, and other symbols (punctuation, emoji, lone surrogates). Digits come in
 * groups of at most three already, so they end a run and start none.
 */
const digit = 0;
const letter = 1;
const space = 2;
const symbol = 3;
const letterOrMark = /^[\p{L}\p{M}]$/u;
const whitespace = /^\s$/u;
const number = /^\p{N}$/u;

/** The run class of one code point (a one- or two-unit string), as `\p{…}` and `\s` read it under the `u` flag. */
function classify(character: string): number {
  if (letterOrMark.test(character)) return letter;
  if (whitespace.test(character)) return space;
  if (number.test(character)) return digit;
  return symbol;
}

/**
 * The run class of each UTF-16 unit seen so far, plus one (0: not yet classified): a fixed
 * 64 KiB whatever the input, filled as characters are first met, so that a code point costs
 * one regex test in the life of the process instead of one per character read.
 */
const unitClasses = new Uint8Array(0x10000);

function classOfUnit(code: number): number {
  const known = unitClasses[code]!;
  if (known !== 0) return known - 1;
  const found = classify(String.fromCharCode(code));
  unitClasses[code] = found + 1;
  return found;
}

/** @internal */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** @internal */
export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `text` cut into pieces for the BPE. gpt-tokenizer's byte-pair merge is quadratic in the
 * length of one pre-tokenizer chunk, and a run without a break (8,000 emoji, a 20,000-letter
 * word) is one chunk: seconds of synchronous work. So every run of one class (letters,
 * symbols or whitespace) longer than `maxRunLength` code points is cut every `maxRunLength`
 * code units (one earlier when that would split a surrogate pair), which makes the work linear
 * with a small constant (a 1 MiB run of random letters: about 0.3 s, like 1 MiB of prose;
 * 256-unit pieces would still cost seconds). Text without such runs is one piece, so its count
 * is exactly gpt-tokenizer's; a long run may count a token or so more than encoding it whole.
 * Every count in this package goes through here, so prompt usage, completion usage and the
 * `maxTokens` cut all agree.
 *
 * The runs are found by `findLongRuns`, one pass over the text with a table per UTF-16 unit:
 * the same runs as the regex `[\p{L}\p{M}]{33,}|[^\s\p{L}\p{M}\p{N}]{33,}|\s{33,}` with
 * `matchAll`, which tried up to 33 characters at every position and was a third of the
 * engine's time for an ordinary answer (a property test keeps the two in agreement).
 * @internal
 */
export function splitForEncoding(text: string): string[] {
  if (text.length <= maxRunLength) return [text];
  const pieces: string[] = [];
  let start = 0;
  findLongRuns(text, (runStart, end) => {
    let cut = runStart + maxRunLength;
    while (end - cut > 0) {
      if (isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
      pieces.push(text.slice(start, cut));
      start = cut;
      cut += maxRunLength;
    }
  });
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * Calls `onRun(start, end)` (UTF-16 indexes) for every maximal run of one class longer than
 * `maxRunLength` code points, in order. A surrogate pair is one code point, classified whole;
 * a lone surrogate is a symbol, as under the regex `u` flag.
 */
function findLongRuns(text: string, onRun: (start: number, end: number) => void): void {
  let runClass = digit;
  let runStart = 0;
  let runPoints = 0;
  for (let index = 0; index < text.length; ) {
    const code = text.charCodeAt(index);
    let found: number;
    let width = 1;
    if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(index + 1))) {
      found = classify(text.slice(index, index + 2));
      width = 2;
    } else {
      found = classOfUnit(code);
    }
    if (found !== runClass) {
      if (runClass !== digit && runPoints > maxRunLength) onRun(runStart, index);
      runClass = found;
      runStart = index;
      runPoints = 0;
    }
    runPoints++;
    index += width;
  }
  if (runClass !== digit && runPoints > maxRunLength) onRun(runStart, text.length);
}

/** Tokens of `text` under o200k_base, special-token text treated as plain text. @internal */
function encodeText(text: string): number[] {
  const pieces = splitForEncoding(text);
  if (pieces.length === 1) return encode(text, plainText);
  const tokens: number[] = [];
  for (const piece of pieces) for (const token of encode(piece, plainText)) tokens.push(token);
  return tokens;
}

/** Counts of texts seen lately (see `RecentTokenCounts`). */
const recentCounts = new RecentTokenCounts();

/** Number of o200k_base tokens in `text` (long runs counted in pieces, see `splitForEncoding`). @internal */
export function countTextTokens(text: string): number {
  if (text === '') return 0;
  const known = recentCounts.get(text);
  if (known !== undefined) return known;
  let tokens = 0;
  for (const piece of splitForEncoding(text)) tokens += countTokens(piece, plainText);
  recentCounts.remember(text, tokens);
  return tokens;
}

type WellFormedString = { isWellFormed(): boolean; toWellFormed(): string };
/** ES2024's `String.prototype.toWellFormed` (Node 20, current browsers, Bun, Deno, workerd): one native pass, no regex. */
const hasNativeWellFormed = typeof (String.prototype as Partial<WellFormedString>).toWellFormed === 'function';

/** Lone surrogates replaced by U+FFFD, which is what the tokenizer encodes them as anyway. @internal */
export function toWellFormed(text: string): string {
  if (hasNativeWellFormed) return (text as unknown as WellFormedString).toWellFormed();
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu, '\uFFFD');
}

/** A streamable piece of text and the number of tokens up to and including it. @internal */
export interface TokenPiece {
  text: string;
  tokensThrough: number;
}

/**
 * A text's tokens, counting those taken. A class, not a generator method made per call: each
 * such method got a hidden class and a prototype of its own in the old generation, and young
 * collections kept the call's tokens until a full one.
 */
class CountedTokens implements IterableIterator<number> {
  readonly #tokens: readonly number[];
  consumed = 0;

  constructor(tokens: readonly number[]) {
    this.#tokens = tokens;
  }

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<number> {
    if (this.consumed === this.#tokens.length) return { done: true, value: undefined };
    return { done: false, value: this.#tokens[this.consumed++]! };
  }
}

function decodeCounting(tokens: readonly number[]): TokenPiece[] {
  const counted = new CountedTokens(tokens);
  const pieces: TokenPiece[] = [];
  // decodeGenerator pulls one token at a time, so `consumed` is exact at each yield.
  for (const text of decodeGenerator(counted)) if (text !== '') pieces.push({ text, tokensThrough: counted.consumed });
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
