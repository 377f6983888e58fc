import { describe, expect, it } from 'vitest';
import { findUnsafePattern, maxPatternLength } from './find-unsafe-pattern.js';

describe('findUnsafePattern', () => {
  it.each([
    '^[a-z]{3}$',
    '^\\d{4}-\\d{2}-\\d{2}$',
    '^(\\d{1,3}\\.){3}\\d{1,3}$',
    '^(USD|EUR|GBP)$',
    '^(\\+|-)?\\d+(\\.\\d+)?$',
    '^[A-Za-z0-9_-]{1,64}$',
    '^(?<year>\\d{4})-(?:0[1-9]|1[0-2])$',
    '^\\p{Lu}\\p{Ll}+$',
    '([0-9a-f]{2}:){5}[0-9a-f]{2}',
    '[(+*)]+',
    '\\(a+\\)+',
  ])('should accept the everyday pattern %s', (pattern) => {
    expect(findUnsafePattern(pattern)).toBeUndefined();
  });

  it.each([
    ['(a+)+$', 'itself repeats'],
    ['^(a*)*b', 'itself repeats'],
    ['^(\\w+\\s?)*$', 'itself repeats'],
    ['((a)+)*', 'itself repeats'],
    ['(a{1,2})*$', 'itself repeats'],
    ['(a+){16}', 'itself repeats'],
    ['(?:x+y?)+z', 'itself repeats'],
    ['(a|a)*$', 'alternatives'],
    ['(a|aa){10}', 'alternatives'],
    ['((a|b)c)+', 'alternatives'],
    ['(a\\1)+', 'backreference'],
    ['(', 'not a valid regular expression'],
    ['a{', 'not a valid regular expression'],
    ['\\p{NotAProperty}', 'not a valid regular expression'],
    ['x'.repeat(maxPatternLength + 1), 'longer than'],
  ])('should refuse %s', (pattern, reason) => {
    expect(findUnsafePattern(pattern)).toContain(reason);
  });
});
