import { compileLinearPattern } from '@quantum-chat/core/json-schema';
import type { ArgumentHints } from './argument-hints.js';
import { GenerationBudgetExceeded, type GenerationBudget } from './generation-budget.js';
import type { JsonSchema } from './resolve-schema.js';

const formatExamples: Record<string, string> = {
  date: '2025-01-01',
  'date-time': '2025-01-01T00:00:00Z',
  time: '00:00:00',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  iri: 'https://example.com',
  'uri-reference': 'https://example.com',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uuid: '00000000-0000-4000-8000-000000000000',
};

type Category = 'location' | 'search' | 'expression' | 'text' | 'name' | 'date' | 'email' | 'url' | 'language';

const categories: Array<[Category, RegExp]> = [
  ['location', /^(location|city|place|address|destination|origin|region|country|town|where|locality|area|state|loc)$|(city|location|address|place)$/u],
  ['search', /^(q|query|search|searchterm|searchquery|searchstring|term|terms|keywords?|topic|subject|question|prompt|phrase)$/u],
  ['expression', /^(expression|expr|formula|equation|calculation|math)$/u],
  ['text', /^(text|input|message|content|body|note|comment|instructions?)$/u],
  ['name', /^(name|title|label|filename)$/u],
  ['date', /^(date|day|when)$|date$|^date/u],
  ['email', /e?mail/u],
  ['url', /^(url|uri|link|website|href)$/u],
  ['language', /^(lang|language|locale)$/u],
];

function categoryOf(name: string, format: unknown): Category | undefined {
  if (format === 'date' || format === 'date-time') return 'date';
  if (format === 'email') return 'email';
  if (format === 'uri' || format === 'url') return 'url';
  const key = name.toLowerCase().replace(/[^a-z0-9]/gu, '');
  return categories.find(([, pattern]) => pattern.test(key))?.[0];
}

/** Whether the message gives a value for a property of this name (used to fill optional ones). @internal */
export function hasHintFor(name: string, format: unknown, hints: ArgumentHints): boolean {
  const category = categoryOf(name, format);
  return (category === 'location' && hints.location !== undefined) || (category === 'date' && hints.date !== undefined);
}

function hinted(category: Category | undefined, format: unknown, hints: ArgumentHints): string | undefined {
  const keywords = hints.keywords.slice(0, 4).join(' ');
  switch (category) {
    case 'location':
      return hints.location ?? (keywords || undefined);
    case 'search':
      return hints.searchPhrase || undefined;
    case 'expression':
      return hints.expression ?? (hints.searchPhrase || undefined);
    case 'text':
      return hints.text || undefined;
    case 'name':
      return hints.keywords.slice(0, 3).join(' ') || undefined;
    case 'date': {
      const isoDate = hints.date && /^\d{4}-\d{2}-\d{2}$/u.test(hints.date) ? hints.date : undefined;
      if (format === 'date') return isoDate;
      if (format === 'date-time') return isoDate ? `${isoDate}T00:00:00Z` : undefined;
      return hints.date;
    }
    case 'email':
    case 'url':
      return undefined; // never invent an address from the message; the format example is used
    case 'language':
      return 'en';
    default:
      return keywords || hints.text || undefined;
  }
}

/** Generated strings are at most this many UTF-16 code units long (see `generateFromSchema`). @internal */
export const maxGeneratedStringLength = 4_096;

function cutAtCodePoint(value: string, length: number): string {
  if (value.length <= length) return value;
  const code = value.charCodeAt(length - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

function fitLength(value: string, schema: JsonSchema): string {
  // A hint (the whole message, for a `text` property) is cut first, never inside a surrogate pair.
  let characters = [...cutAtCodePoint(value, maxGeneratedStringLength)];
  if (typeof schema.maxLength === 'number' && characters.length > schema.maxLength) {
    characters = characters.slice(0, Math.max(0, schema.maxLength));
  }
  if (typeof schema.minLength === 'number' && characters.length < schema.minLength) {
    // The caller refuses a minLength above maxGeneratedStringLength before we get here.
    characters = [...characters, ...'x'.repeat(Math.min(schema.minLength, maxGeneratedStringLength) - characters.length)];
  }
  return characters.join('');
}

/** At most this many of a schema's `examples` are tried against its pattern. */
const maxTriedExamples = 16;

/**
 * Whether the value matches the schema's pattern, run by the linear-time engine (a pattern
 * from a request never runs on a backtracking one); each tested character is taken from the
 * budget, which ends the generation when spent.
 */
function matchesPattern(value: string, schema: JsonSchema, budget: Pick<GenerationBudget, 'matchedCharacters'> | undefined): boolean {
  if (typeof schema.pattern !== 'string') return true;
  const { pattern } = compileLinearPattern(schema.pattern);
  if (pattern === undefined) return true; // refused by the handler; left to the validator
  if (budget !== undefined) {
    budget.matchedCharacters -= value.length + 1;
    if (budget.matchedCharacters < 0) throw new GenerationBudgetExceeded();
  }
  return pattern.test(value);
}

/**
 * A string for a property: from the message when the property's name says what it holds
 * (`location`/`city` get the place, `query` the search phrase, `expression` the arithmetic),
 * else its `default`, else an example for its `format`, else the message's keywords; then
 * fitted to `minLength`/`maxLength`. With no hints (the minimal fallback) it uses only the
 * schema. The `index` of an array item picks a different keyword so items stay distinct.
 *
 * @example
 * generateStringValue({ type: 'string' }, 'city', buildArgumentHints('Weather in Oslo?'), 0); // 'Oslo'
 * @internal
 */
export function generateStringValue(
  schema: JsonSchema,
  name: string,
  hints: ArgumentHints | undefined,
  index: number,
  budget?: Pick<GenerationBudget, 'matchedCharacters'>,
): string {
  const category = categoryOf(name, schema.format);
  const fromFormat = typeof schema.format === 'string' ? formatExamples[schema.format] : undefined;
  const fallback = typeof schema.default === 'string' ? schema.default : fromFormat;
  let value: string;
  if (!hints) {
    value = fallback ?? '';
  } else if (index > 0) {
    value = hints.keywords[index] ?? `${hinted(category, schema.format, hints) ?? fallback ?? 'item'} ${index + 1}`;
  } else {
    value = hinted(category, schema.format, hints) ?? fallback ?? 'example';
  }
  const fitted = fitLength(value, schema);
  if (matchesPattern(fitted, schema, budget)) return fitted;
  const examples = Array.isArray(schema.examples) ? schema.examples.slice(0, maxTriedExamples) : [];
  const alternatives = [schema.default, ...examples, fromFormat];
  const valid = alternatives.find((candidate): candidate is string => typeof candidate === 'string' && matchesPattern(candidate, schema, budget));
  return valid ?? fitted;
}
