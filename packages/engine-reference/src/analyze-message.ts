import { evaluateArithmetic, type ArithmeticResult } from './evaluate-arithmetic.js';
import { countWords, extractKeywords, splitWords } from './extract-keywords.js';
import { toWellFormed } from './tokenizer.js';

/** What the engine notices about a message before it writes anything. @internal */
export interface MessageAnalysis {
  text: string;
  words: string[];
  wordCount: number;
  characterCount: number;
  /** Significant words in order of appearance (see `extractKeywords`). */
  keywords: string[];
  /** The first words of the message, for quoting back (at most 12 words, `…` when cut). */
  quote: string;
  isQuestion: boolean;
  isGreeting: boolean;
  arithmetic?: ArithmeticResult;
}

const quoteWords = 12;

/** Any UTF-16 surrogate (no `u` flag: a pair is two units here). */
const surrogate = /[\ud800-\udfff]/;

/** `[...text].length` without the array of a million code points a 1 MiB paste would make. */
function countCodePoints(text: string): number {
  if (!surrogate.test(text)) return text.length;
  let pairs = 0;
  for (let index = 0; index < text.length - 1; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      pairs++;
      index++;
    }
  }
  return text.length - pairs;
}
/** Longer messages are read at both ends only, so the regexes stay cheap on a 1 MiB paste. */
const focusLength = 4000;

/**
 * The part of a message the engine looks at for meaning: all of it up to 4,000 characters,
 * else the first and last 2,000 (a question usually opens or closes a pasted document).
 *
 * @example
 * focusText('short question?'); // 'short question?'
 * @internal
 */
export function focusText(text: string): string {
  if (text.length <= focusLength) return text;
  const half = focusLength / 2;
  return toWellFormed(`${text.slice(0, half)} … ${text.slice(-half)}`);
}

/**
 * Reads a user message: its words, keywords, whether it is a question or a greeting, and
 * any arithmetic in it.
 *
 * @example
 * analyzeMessage('What is 2+2?').arithmetic; // { expression: '2 + 2', result: '4' }
 * @internal
 */
export function analyzeMessage(text: string): MessageAnalysis {
  return new Analysis(text.trim());
}

/**
 * An analysis as a class: its `words` a getter on the prototype, and `arithmetic` always set.
 * Why: a literal with a getter of its own (a new closure each time) became a dictionary-mode
 * object per message, which every reader of it then looked up slowly.
 */
class Analysis implements MessageAnalysis {
  readonly text: string;
  readonly wordCount: number;
  readonly characterCount: number;
  readonly keywords: string[];
  readonly quote: string;
  readonly isQuestion: boolean;
  readonly isGreeting: boolean;
  readonly arithmetic: ArithmeticResult | undefined;

  constructor(trimmed: string) {
    const focus = focusText(trimmed);
    const rawWords = focus.slice(0, 2000).split(/\s+/u).filter((word) => word !== '');
    const quote = rawWords.length > quoteWords ? `${rawWords.slice(0, quoteWords).join(' ')}…` : rawWords.join(' ');
    this.text = trimmed;
    this.wordCount = countWords(trimmed);
    this.characterCount = countCodePoints(trimmed);
    this.keywords = extractKeywords(focus);
    this.quote = quote.length > 160 ? `${[...quote].slice(0, 160).join('')}…` : quote;
    this.isQuestion = /\?\s*$/u.test(focus) || /^(who|what|when|where|why|how|which|is|are|can|could|do|does|should|will|would)\b/iu.test(trimmed);
    this.isGreeting = /^(hi|hello|hey|greetings|good\s+(morning|afternoon|evening))\b/iu.test(trimmed);
    this.arithmetic = evaluateArithmetic(focus);
  }

  /** Made when read (tool arguments read a 4,000-character focus); counting needs no words. */
  get words(): string[] {
    return splitWords(this.text);
  }
}
