import { analyzeMessage, focusText } from './analyze-message.js';

/** What a user message offers for filling in tool arguments. @internal */
export interface ArgumentHints {
  text: string;
  keywords: string[];
  /** Capitalised words after in/at/for/near/from/to ("New York"), else the first capitalised name. */
  location: string | undefined;
  /** What to search for: the words after "search for", "look up", "about", …, else the keywords. */
  searchPhrase: string;
  /** The arithmetic expression in the message, if any. */
  expression: string | undefined;
  /** Numbers in the message, in order. */
  numbers: number[];
  /** An ISO date (`2025-03-01`) or a relative day (`today`, `tomorrow`) in the message. */
  date: string | undefined;
  /** Lowercase words of the message, for matching enum values. */
  words: Set<string>;
}

const maxPhraseLength = 200;
const capitalised = String.raw`[\p{Lu}][\p{L}\p{M}'’.-]*`;
const placeAfter = (prepositions: string): RegExp =>
  new RegExp(String.raw`\b(?:${prepositions})\s+(${capitalised}(?:(?:\s+|,\s*)(?:${capitalised}|of|de|del|la|le|am))*)`, 'u');
// "in Paris" is a surer sign of a place than "for Paris", so it is tried first.
const locationPatterns = [placeAfter('in|at|near|around'), placeAfter('for|from|to')];
/** Where one request ends and the next begins: "… tutorials and tell me the weather". */
const clauseBreak = /[,;]|\.\s|\s+(?:and|then|but|also|plus)\s+(?:tell|give|show|what|what's|how|find|get|check|let|look|search|send|book)\b/iu;
const searchLead =
  /\b(?:search(?:\s+(?:the\s+web|online|the\s+internet|the\s+docs))?\s+for|look\s+up|lookup|find(?:\s+me)?|google|research)\s+(.+)$/iu;
const aboutLead = /\b(?:about|regarding|on|for)\s+(.+)$/iu;

/** At most `limit` code points, so a cut never splits a surrogate pair. */
function firstCharacters(text: string, limit: number): string {
  return text.length <= limit ? text : [...text].slice(0, limit).join('');
}

function cleanPhrase(phrase: string): string {
  const cleaned = (phrase.split(clauseBreak)[0] ?? '').replace(/[\s?!.,;:]+$/u, '').replace(/\s+/gu, ' ').trim();
  return firstCharacters(cleaned, maxPhraseLength).trimEnd();
}

function findLocation(text: string): string | undefined {
  const match = locationPatterns.map((pattern) => pattern.exec(text)).find((found) => found?.[1]);
  if (match?.[1]) return cleanPhrase(match[1].replace(/(?:\s+(?:of|de|del|la|le|am))+$/u, ''));
  // A capitalised word that does not start a sentence, e.g. "weather Paris".
  const name = /(?<![.?!]\s*|^\s*)\b[\p{Lu}][\p{L}\p{M}'’-]+/u.exec(text);
  return name ? name[0] : undefined;
}

/**
 * Collects what a user message offers for tool arguments: a location, a search phrase,
 * numbers, a date, an arithmetic expression.
 *
 * @example
 * buildArgumentHints('Weather in New York tomorrow?').location; // 'New York'
 * @internal
 */
export function buildArgumentHints(text: string): ArgumentHints {
  const analysis = analyzeMessage(focusText(text));
  const keywordPhrase = analysis.keywords.slice(0, 6).join(' ');
  const searchMatch = searchLead.exec(analysis.text) ?? aboutLead.exec(analysis.text);
  const searchPhrase = cleanPhrase(searchMatch?.[1] ?? '') || keywordPhrase || cleanPhrase(analysis.text);
  const isoDate = /\b\d{4}-\d{2}-\d{2}\b/u.exec(analysis.text)?.[0];
  const relativeDay = /\b(today|tomorrow|yesterday|tonight)\b/iu.exec(analysis.text)?.[1]?.toLowerCase();
  return {
    text: firstCharacters(analysis.text, maxPhraseLength),
    keywords: analysis.keywords,
    location: findLocation(analysis.text),
    searchPhrase,
    expression: analysis.arithmetic?.expression,
    numbers: (analysis.text.match(/(?<![\w.-])-?\d+(?:\.\d+)?/gu) ?? []).map(Number).filter(Number.isFinite),
    date: isoDate ?? relativeDay,
    words: new Set(analysis.words.map((word) => word.toLowerCase())),
  };
}
