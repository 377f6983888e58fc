import { describe, expect, it } from 'vitest';
import { evaluateArithmetic } from './evaluate-arithmetic.js';

describe('evaluateArithmetic', () => {
  it.each([
    ['What is 2+2?', '2 + 2', '4'],
    ['what is 12 times 7', '12 * 7', '84'],
    ['Calculate (3 + 4) * 2 - 1', '(3 + 4) * 2 - 1', '13'],
    ['how much is 2 ^ 3 ^ 2', '2 ^ 3 ^ 2', '512'],
    ['compute 10 divided by 4', '10 / 4', '2.5'],
    ['1/3 please, what is it', '1 / 3', '0.333333333333'],
    ['what is -5 + 3', '- 5 + 3', '-2'],
    ['solve 6 x 7', '6 * 7', '42'],
  ])('should evaluate %j as %s = %s', (text, expression, result) => {
    expect(evaluateArithmetic(text)).toEqual({ expression, result });
  });

  it('should report a division by zero as undefined', () => {
    expect(evaluateArithmetic('what is 1/0')).toEqual({ expression: '1 / 0', result: 'undefined' });
  });

  it('should not read dates or phone numbers as subtraction', () => {
    expect(evaluateArithmetic('Weather on 2025-03-14 please')).toBeUndefined();
    expect(evaluateArithmetic('Call me at 555-1234')).toBeUndefined();
  });

  it('should find nothing in text with fewer than two digits, however mathematical it reads', () => {
    expect(evaluateArithmetic('what is 5 plus five times three')).toBeUndefined();
    expect(evaluateArithmetic('calculate .5 multiplied by x')).toBeUndefined();
  });

  it('should ignore text without an operator between two numbers', () => {
    expect(evaluateArithmetic('I have 2 cats and 3 dogs')).toBeUndefined();
    expect(evaluateArithmetic('hello')).toBeUndefined();
  });
});
