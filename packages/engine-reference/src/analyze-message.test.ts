import { setFlagsFromString } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeMessage } from './analyze-message.js';
import { countWords, splitWords } from './extract-keywords.js';
import { createSeededRandom, createSeedSource } from './seeded-random.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own checks: two objects share one hidden class; an object's properties are fast, not a dictionary. */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- as above.
const hasFastProperties = new Function('a', 'return %HasFastProperties(a)') as (a: object) => boolean;

/** Text of the characters word splitting cares about: letters, digits, joiners, spaces, marks, astral letters and emoji, lone surrogates. */
const wordyText = fc
  .array(fc.constantFrom('a', 'Z', 'é', '7', '٣', "'", '’', '_', '-', ' ', '\n', '.', ',', '\u0301', '𝒜', '𠀀', '😀', '\ud800', '\udc00', '漢'), { maxLength: 80 })
  .map((parts) => parts.join(''));

describe('reading a long message without making its words', () => {
  it('should count the words splitWords finds', () => {
    fc.assert(
      fc.property(wordyText, (text) => {
        expect(countWords(text)).toBe(splitWords(text).length);
      }),
      { numRuns: 2000 },
    );
  });

  it('should give the same analysis, its words read only when asked', () => {
    const text = "  Hello world, it's a well-known test — 𝒜lpha 42 times 😀 naïve_words-- end?  ";
    const analysis = analyzeMessage(text);
    expect(analysis.wordCount).toBe(splitWords(text.trim()).length);
    expect(analysis.characterCount).toBe([...text.trim()].length);
    expect(analysis.words).toEqual(splitWords(text.trim()));
    expect(analyzeMessage('plain ascii').characterCount).toBe(11);
  });

  it('should derive from a seed hashed once what it derives from the whole seed text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ maxLength: 12 }), fc.boolean(), (seed, suffix, cold) => {
        const derived = createSeedSource(seed).derive(suffix, { cold });
        const whole = createSeededRandom(seed + suffix, { cold });
        expect([derived.next(), derived.next(), derived.pick(['a', 'b', 'c'])]).toEqual([whole.next(), whole.next(), whole.pick(['a', 'b', 'c'])]);
      }),
    );
  });
});

describe('the analysis object', () => {
  it('should be one hidden class with fast properties for every message (the engine reads one per request)', () => {
    const analyses = Array.from({ length: 40 }, (_, index) => analyzeMessage(index % 2 === 0 ? `What is ${index} + 2?` : `Tell me about item ${index}.`));
    const last = analyses.at(-1)!;
    expect(analyses.slice(-30).filter((analysis) => !sameHiddenClass(analysis, last) || !hasFastProperties(analysis))).toHaveLength(0);
    expect(analyses[0]!.arithmetic).toBeDefined();
    expect(analyses[1]!.arithmetic).toBeUndefined();
  });
});
