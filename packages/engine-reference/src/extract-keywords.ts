/*
 * Words too common to say anything about a request. The list is short on purpose: it only
 * has to keep keyword echoes and tool matching from triggering on glue words.
 */
const stopWords = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing done down during each either else even ever every ' +
    'few for from further get gets give go going got had has have having he her here hers him his how ' +
    'i if in into is it its itself just know let lets like me might more most much must my myself need ' +
    'no nor not now of off on once only or other our ours out over own please same shall she should so ' +
    'some such tell than thank thanks that the their them then there these they thing things this those ' +
    'through to too under until up upon us use using very want was we well were what when where which ' +
    'while who whom whose why will with would yes yet you your yours yourself hi hello hey ok okay ' +
    "can't don't i'm it's what's that's there's let's i've i'd i'll you're"
  ).split(' '),
);

const wordPattern = /[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu;

/** The words of `text` in order (letters and digits, keeping inner apostrophes and hyphens). @internal */
export function splitWords(text: string): string[] {
  return (text.match(wordPattern) ?? []).map((word) => word.replace(/['’_-]+$/u, ''));
}

const wordStart = /^[\p{L}\p{N}]$/u;
const notInWord = 0;
const startsWord = 1;
const joinsWord = 2;

/** The word class of each UTF-16 unit met so far, plus one (0: not yet classified): one regex test per unit in the life of the process. */
const unitWordClasses = new Uint8Array(0x10000);
/** The same for code points beyond the first plane, as they are met (a bounded few: a flood of distinct ones must not grow it). */
const astralWordClasses = new Map<number, number>();
const astralClassesKept = 4096;

function classifyForWords(character: string): number {
  if (wordStart.test(character)) return startsWord;
  return character === "'" || character === '’' || character === '_' || character === '-' ? joinsWord : notInWord;
}

/**
 * `splitWords(text).length` without making the words: one pass with a class per code point, so
 * that the word count of a 1 MiB paste does not hold the event loop for the tens of
 * milliseconds its quarter of a million strings take. A word starts at a letter or digit and
 * runs through letters, digits, apostrophes, underscores and hyphens, as in `splitWords`.
 * @internal
 */
export function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    let found: number;
    if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      const point = (code - 0xd800) * 0x400 + (text.charCodeAt(index + 1) - 0xdc00) + 0x10000;
      found = astralWordClasses.get(point) ?? -1;
      if (found === -1) {
        found = classifyForWords(String.fromCodePoint(point));
        if (astralWordClasses.size >= astralClassesKept) astralWordClasses.clear();
        astralWordClasses.set(point, found);
      }
      index++;
    } else {
      found = unitWordClasses[code]! - 1;
      if (found === -1) {
        found = classifyForWords(String.fromCharCode(code));
        unitWordClasses[code] = found + 1;
      }
    }
    if (inWord) inWord = found !== notInWord;
    else if (found === startsWord) {
      words++;
      inWord = true;
    }
  }
  return words;
}

/** Whether `word` (any case) is a glue word that carries no topic. @internal */
function isStopWord(word: string): boolean {
  return stopWords.has(word.toLowerCase().replace(/’/gu, "'"));
}

/**
 * The significant words of `text`: not glue words, not bare numbers, at least three
 * characters, each once, in order of first appearance, in their original spelling.
 *
 * @example
 * extractKeywords('What is the weather in Paris today?'); // ['weather', 'Paris', 'today']
 * @internal
 */
export function extractKeywords(text: string): string[] {
  const seen = new Set<string>();
  const keywords: string[] = [];
  for (const word of splitWords(text)) {
    const key = word.toLowerCase();
    if (seen.has(key) || isStopWord(word)) continue;
    // Bare numbers are left to the arithmetic; a keyword is a word.
    if (word.length < 3 || /^[\p{N}.,'’_-]+$/u.test(word)) continue;
    seen.add(key);
    keywords.push(word);
  }
  return keywords;
}
