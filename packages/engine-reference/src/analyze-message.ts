import { evaluateArithmetic, type ArithmeticResult } from './evaluate-arithmetic.js';
import { extractKeywords, splitWords } from './extract-keywords.js';

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

/**
 * Reads a user message: its words, keywords, whether it is a question or a greeting, and
 * any arithmetic in it.
 *
 * @example
 * analyzeMessage('What is 2+2?').arithmetic; // { expression: '2 + 2', result: '4' }
 * @internal
 */
export function analyzeMessage(text: string): MessageAnalysis {
  const trimmed = text.trim();
  const words = splitWords(trimmed);
  const flat = trimmed.replace(/\s+/gu, ' ');
  const rawWords = flat === '' ? [] : flat.split(' ');
  const quote = rawWords.length > quoteWords ? `${rawWords.slice(0, quoteWords).join(' ')}…` : flat;
  const arithmetic = evaluateArithmetic(trimmed);
  return {
    text: trimmed,
    words,
    wordCount: words.length,
    characterCount: [...trimmed].length,
    keywords: extractKeywords(trimmed),
    quote: quote.length > 160 ? `${[...quote].slice(0, 160).join('')}…` : quote,
    isQuestion: /\?\s*$/u.test(trimmed) || /^(who|what|when|where|why|how|which|is|are|can|could|do|does|should|will|would)\b/iu.test(trimmed),
    isGreeting: /^(hi|hello|hey|greetings|good\s+(morning|afternoon|evening))\b/iu.test(trimmed),
    ...(arithmetic ? { arithmetic } : {}),
  };
}
