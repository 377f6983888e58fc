import { RE2JS } from 're2js';

/** Patterns longer than this are refused outright. */
export const maxPatternLength = 512;

/** A compiled JSON Schema regex whose matching time grows linearly with the input. */
export interface LinearPattern {
  readonly source: string;
  /** Whether the pattern matches somewhere in `value` (JSON Schema patterns are not anchored). */
  test(value: string): boolean;
}

/** A pattern, or why it cannot be used. */
export type CompiledPattern = { pattern: LinearPattern; problem?: undefined } | { pattern?: undefined; problem: string };

/**
 * What only a backtracking engine can do: backreferences (`\1`, `\k<name>`) and lookarounds
 * (`(?=`, `(?!`, `(?<=`, `(?<!`). RE2 has neither; its translator would even read `\k<n>` as
 * the letters `k<n>`, so they are found here first, outside character classes.
 */
function findBacktrackingConstruct(source: string): string | undefined {
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      if (!inClass && (/[1-9]/u.test(next) || (next === 'k' && source[index + 2] === '<'))) return 'uses a backreference';
      index++;
    } else if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(' && source[index + 1] === '?') {
      const kind = source.slice(index + 2, index + 4);
      if (kind[0] === '=' || kind[0] === '!' || kind === '<=' || kind === '<!') return 'uses a lookaround';
    }
  }
  return undefined;
}

function compile(source: string): CompiledPattern {
  if (source.length > maxPatternLength) return { problem: `is longer than ${maxPatternLength} characters` };
  try {
    // JSON Schema patterns are ECMAScript regexes: it must be one (compiling is not matching).
    new RegExp(source, 'u');
  } catch {
    return { problem: 'is not a valid regular expression (ECMAScript, unicode mode)' };
  }
  const construct = findBacktrackingConstruct(source);
  if (construct !== undefined) return { problem: `${construct}, which a linear-time regex engine cannot run` };
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /u, '').slice(0, 120);
    return { problem: `cannot run in a linear-time regex engine (${reason})` };
  }
  return { pattern: { source, test: (value) => compiled.test(value) } };
}

// Compiled patterns by source, least recently used out first: bounded, since sources come
// from requests.
const maxCachedPatterns = 512;
const cache = new Map<string, CompiledPattern>();

/**
 * Compiles a regex from a request (a JSON Schema `pattern` or `patternProperties` key) with
 * RE2, whose matching time is linear in the input: no pattern can stall the event loop, as
 * `^[a-z]*[a-z]*[a-z]*!$` over 4,000 letters does in a backtracking engine. Returns the
 * pattern, or the problem with it: not ECMAScript, longer than 512 characters, or a construct
 * only backtracking can run (backreferences, lookarounds, more than 1,000 repetitions).
 *
 * @example
 * compileLinearPattern('^[a-z]*[a-z]*!$').pattern?.test('a'.repeat(4000)); // false, in microseconds
 * compileLinearPattern('(a)\\1').problem; // 'uses a backreference, which a linear-time regex engine cannot run'
 */
export function compileLinearPattern(source: string): CompiledPattern {
  const cached = cache.get(source);
  if (cached !== undefined) {
    cache.delete(source);
    cache.set(source, cached);
    return cached;
  }
  const compiled = compile(source);
  cache.set(source, compiled);
  if (cache.size > maxCachedPatterns) cache.delete(cache.keys().next().value!);
  return compiled;
}
