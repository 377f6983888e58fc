/** An arithmetic expression found in a message, and its value. @internal */
export interface ArithmeticResult {
  /** The expression as written with normalised spacing, e.g. `2 + 2`. */
  expression: string;
  /** The value as text: `4`, `0.333333333333`, or `undefined` for a division by zero. */
  result: string;
}

const wordOperators: Array<[RegExp, string]> = [
  [/\bmultiplied\s+by\b/giu, '*'],
  [/\bdivided\s+by\b/giu, '/'],
  [/\bto\s+the\s+power\s+of\b/giu, '^'],
  [/\bplus\b/giu, '+'],
  [/\bminus\b/giu, '-'],
  [/\btimes\b/giu, '*'],
  [/(?<=\d\s*)[x×](?=\s*\d)/giu, '*'],
  [/÷/gu, '/'],
];

const mathCue = /\b(calculate|compute|solve|evaluate|what\s+is|what's|how\s+much\s+is|equals?)\b|=/iu;
const candidatePattern = /[-+*/^().\d\s]+/gu;
const tokenPattern = /\d+(?:\.\d+)?|\.\d+|[-+*/^()]/gu;

/**
 * Whether `text` holds at least two ASCII digits (`\d` under the `u` flag): an expression needs
 * two numbers, so most messages, which have fewer, skip the eight rewriting passes below.
 */
function hasTwoDigits(text: string): boolean {
  let digits = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 48 && code <= 57 && ++digits === 2) return true;
  }
  return false;
}

/**
 * Finds the longest arithmetic expression in `text` (digits, `+ - * / ^`, parentheses, and
 * the words plus/minus/times/divided by) and evaluates it. A lone `-` between numbers (a
 * date, a phone number) only counts when the text also asks for a calculation.
 *
 * @example
 * evaluateArithmetic('What is 2+2?'); // { expression: '2 + 2', result: '4' }
 * @internal
 */
export function evaluateArithmetic(text: string): ArithmeticResult | undefined {
  if (!hasTwoDigits(text)) return undefined;
  let normalised = text;
  for (const [pattern, operator] of wordOperators) normalised = normalised.replace(pattern, ` ${operator} `);
  let best: { tokens: string[]; value: number } | undefined;
  for (const match of normalised.matchAll(candidatePattern)) {
    const candidate = match[0].trim();
    if (candidate.length > 200 || /^\d{4}-\d{1,2}-\d{1,2}$/u.test(candidate)) continue;
    const tokens = candidate.match(tokenPattern) ?? [];
    const numbers = tokens.filter((token) => /\d/u.test(token)).length;
    const operators = tokens.filter((token) => /^[-+*/^]$/u.test(token));
    if (numbers < 2 || operators.length === 0) continue;
    if (operators.every((operator) => operator === '-') && !mathCue.test(text)) continue;
    const value = parseExpression(tokens);
    if (value === undefined) continue;
    if (!best || tokens.length > best.tokens.length) best = { tokens, value };
  }
  if (!best) return undefined;
  return { expression: best.tokens.join(' ').replace(/\( /gu, '(').replace(/ \)/gu, ')'), result: formatNumber(best.value) };
}

function formatNumber(value: number): string {
  if (Number.isNaN(value) || !Number.isFinite(value)) return 'undefined';
  if (Number.isInteger(value)) return String(value);
  return String(Number.parseFloat(value.toPrecision(12)));
}

/** Recursive descent over `+ -` < `* /` < `^` (right-assoc) < unary < number | (expr). */
function parseExpression(tokens: string[]): number | undefined {
  let position = 0;
  const peek = (): string | undefined => tokens[position];
  const expression = (): number | undefined => {
    let left = term();
    while (left !== undefined && (peek() === '+' || peek() === '-')) {
      const operator = tokens[position++];
      const right = term();
      if (right === undefined) return undefined;
      left = operator === '+' ? left + right : left - right;
    }
    return left;
  };
  const term = (): number | undefined => {
    let left = power();
    while (left !== undefined && (peek() === '*' || peek() === '/')) {
      const operator = tokens[position++];
      const right = power();
      if (right === undefined) return undefined;
      left = operator === '*' ? left * right : left / right;
    }
    return left;
  };
  const power = (): number | undefined => {
    const base = unary();
    if (base === undefined || peek() !== '^') return base;
    position++;
    const exponent = power();
    return exponent === undefined ? undefined : base ** exponent;
  };
  const unary = (): number | undefined => {
    if (peek() === '-' || peek() === '+') {
      const sign = tokens[position++] === '-' ? -1 : 1;
      const value = unary();
      return value === undefined ? undefined : sign * value;
    }
    return primary();
  };
  const primary = (): number | undefined => {
    const token = peek();
    if (token === '(') {
      position++;
      const value = expression();
      if (peek() !== ')') return undefined;
      position++;
      return value;
    }
    if (token !== undefined && /\d/u.test(token)) {
      position++;
      return Number(token);
    }
    return undefined;
  };
  const value = expression();
  return position === tokens.length ? value : undefined;
}
