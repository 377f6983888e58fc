/** Patterns longer than this are refused outright. */
export const maxPatternLength = 512;

interface GroupSummary {
  /** Contains a quantifier whose count varies (`*`, `+`, `?`, `{n,}`, `{n,m}`). */
  varies: boolean;
  /** Contains a `|`. */
  alternates: boolean;
  /** Contains a backreference (`\1`, `\k<name>`). */
  refersBack: boolean;
}

interface Quantifier {
  min: number;
  max: number;
  /** Index just past the quantifier (and its lazy `?`). */
  end: number;
}

/** Reads the quantifier at `index`, if there is one. */
function readQuantifier(source: string, index: number): Quantifier | undefined {
  const char = source[index];
  let min: number;
  let max: number;
  let end: number;
  if (char === '*' || char === '+' || char === '?') {
    min = char === '+' ? 1 : 0;
    max = char === '?' ? 1 : Number.POSITIVE_INFINITY;
    end = index + 1;
  } else if (char === '{') {
    const match = /^\{(\d+)(,(\d*))?\}/u.exec(source.slice(index, index + 24));
    if (!match) return undefined;
    min = Number(match[1]);
    max = match[2] === undefined ? min : match[3] === '' ? Number.POSITIVE_INFINITY : Number(match[3]);
    end = index + match[0].length;
  } else {
    return undefined;
  }
  if (source[end] === '?') end++;
  return { min, max, end };
}

/** Index just past the escape that starts at `index` (a `\`). */
function skipEscape(source: string, index: number): number {
  const next = source[index + 1];
  if ((next === 'u' || next === 'p' || next === 'P') && source[index + 2] === '{') return source.indexOf('}', index) + 1 || source.length;
  if (next === 'k' && source[index + 2] === '<') return source.indexOf('>', index) + 1 || source.length;
  if (next === 'u') return index + 6;
  if (next === 'x') return index + 4;
  if (next === 'c') return index + 3;
  return index + 2;
}

/** Index just past the character class that starts at `index` (a `[`). */
function skipClass(source: string, index: number): number {
  let position = index + 1;
  while (position < source.length && source[position] !== ']') position += source[position] === '\\' ? 2 : 1;
  return position + 1;
}

/** Why repeating this group could backtrack exponentially, if it could. */
function riskOfRepeating(group: GroupSummary, quantifier: Quantifier): string | undefined {
  if (quantifier.max <= 1) return undefined;
  // A fixed small count (`(\d{1,3}\.){3}`, an IPv4 address) stays polynomial and tiny.
  const repeatsMuch = quantifier.min !== quantifier.max || quantifier.max > 4;
  if (!repeatsMuch) return undefined;
  if (group.varies) return 'repeats a group that itself repeats (like "(a+)+"), which can backtrack exponentially';
  if (group.alternates) return 'repeats a group of alternatives (like "(a|a)*"), which can backtrack exponentially';
  if (group.refersBack) return 'repeats a group with a backreference, which can backtrack exponentially';
  return undefined;
}

/**
 * Why a JSON Schema regex (`pattern`, a `patternProperties` key) is refused, or `undefined`.
 * It must compile as an ECMAScript regex with the `u` flag (as Ajv compiles it) and must not
 * repeat a group that varies in length, alternates or refers back: the shapes behind
 * catastrophic backtracking (`(a+)+$`, `(a|a)*$`, `(\w+\s?)*$`). A heuristic on purpose: it
 * refuses some safe patterns (`([a-z]+,)*`) rather than letting an engine stall the server.
 *
 * @example
 * findUnsafePattern('^[a-z]{3}$'); // undefined
 * findUnsafePattern('^(a+)+$');   // 'repeats a group that itself repeats ...'
 * @internal
 */
export function findUnsafePattern(source: string): string | undefined {
  if (source.length > maxPatternLength) return `is longer than ${maxPatternLength} characters`;
  try {
    new RegExp(source, 'u');
  } catch {
    return 'is not a valid regular expression (ECMAScript, unicode mode)';
  }
  const stack: GroupSummary[] = [{ varies: false, alternates: false, refersBack: false }];
  // What a quantifier right here would repeat: a group just closed, any other atom, or nothing.
  let previous: GroupSummary | 'atom' | undefined;
  let index = 0;
  while (index < source.length) {
    const char = source[index]!;
    const current = stack[stack.length - 1]!;
    const quantifier = readQuantifier(source, index);
    if (quantifier !== undefined && previous !== undefined) {
      if (previous !== 'atom') {
        const risk = riskOfRepeating(previous, quantifier);
        if (risk !== undefined) return risk;
      }
      if (quantifier.min !== quantifier.max) current.varies = true;
      previous = undefined;
      index = quantifier.end;
      continue;
    }
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      if (/[1-9]/u.test(next) || next === 'k') current.refersBack = true;
      previous = next === 'b' || next === 'B' ? undefined : 'atom';
      index = skipEscape(source, index);
    } else if (char === '[') {
      previous = 'atom';
      index = skipClass(source, index);
    } else if (char === '(') {
      stack.push({ varies: false, alternates: false, refersBack: false });
      previous = undefined;
      if (source[index + 1] === '?') {
        // (?:  (?=  (?!  (?<=  (?<!  (?<name>
        const named = /^\(\?<(?![=!])[^>]*>/u.exec(source.slice(index, index + 200));
        index += named ? named[0].length : source[index + 2] === '<' ? 4 : 3;
      } else {
        index++;
      }
    } else if (char === ')') {
      const closed = stack.length > 1 ? stack.pop()! : current;
      const parent = stack[stack.length - 1]!;
      parent.varies ||= closed.varies;
      parent.alternates ||= closed.alternates;
      parent.refersBack ||= closed.refersBack;
      previous = closed;
      index++;
    } else if (char === '|') {
      current.alternates = true;
      previous = undefined;
      index++;
    } else {
      previous = char === '^' || char === '$' ? undefined : 'atom';
      index++;
    }
  }
  return undefined;
}
